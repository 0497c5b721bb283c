"""Refusal: a fixed roleplay continuation that represents supported traffic.

judge.replies.refusal.assess fails a `content_filter` finish, an empty reply or a high-confidence
refusal (an in-story refusal by a character is not one). A moderation 403 on this prompt
(OpenRouter's `error.metadata.reasons`) fails too: the route refuses supported traffic before
generating, which is the silent filter this contract is for, only louder.

Positive control (docs/contracts.md, The positive control): a control host's case judges the
*probe*: caught is `pass` ("control caught: ..."), passed is `fail` ("control missed: ...") and
makes every refusal pass of its model `inconclusive` ("probe weak: ..."), as an unreachable,
inconclusive or unprobed control does ("probe unverified: ..."); failures still stand.

More evidence at no extra cost (issue 10): every completed latency and language reply of the
same endpoint is checked for an out-of-character refusal (judge.replies.refusal.find_refusal, in those
contracts). A host that refuses there fails this contract, with that reply as the evidence in the
reason, whatever its reply to this prompt was: the product's users send roleplay, not this one
prompt. And a reply to this prompt that stops normally but is short (under SHORT_REPLY_CHARS)
gets `probe.language_confirmations` more attempts, so the judge can tell a host's truncating
filter from one short reply: it compares the lengths with the other hosts' replies to the same
prompt (judge/suspension/short_replies.py). The probe itself never fails a reply for its length.
"""

from __future__ import annotations

import asyncio
from enum import StrEnum
from typing import Any

from core.vocabulary import LANGUAGE, LATENCY, REFUSAL, Outcome
from judge.replies import refusal as refusal_judge
from judge.replies.refusal import RefusalCode
from judge.replies.verdict import Common, Verdict, failed, inconclusive
from probes.http.records import ChatResult, Classification, Endpoint, ErrorKind
from probes.round.cases import Case, ProbedAttempt, ProbedCase
from probes.round.contracts import (
    ChatClient,
    ContractSettings,
    attempt_from,
    clock,
    judge_in_thread,
    moderation_code,
    moderation_summary,
    prompt,
    single,
)

# A reply under this many characters that stops normally gets confirmations: the prompt asks for
# 3 to 6 sentences of English prose, rarely under 160 characters. Only a trigger for spending two
# more requests; whether the replies are "far shorter" is the judge's call, against the peers.
SHORT_REPLY_CHARS = 160


class ControlCode(StrEnum):
    """The codes of the positive controls' verdict on the probe (judge/replies/verdict.py)."""

    CONTROL_MISSED = "control_missed"       # a known filter passed the probe
    PROBE_WEAK = "probe_weak"               # a control passed: no evidence this round
    PROBE_UNVERIFIED = "probe_unverified"   # no control gave a verdict
# The endpoint's other contracts whose replies are roleplay text (structured replies are JSON).
ROLEPLAY_SIBLINGS = (LATENCY, LANGUAGE)


def messages() -> list[dict[str, str]]:
    p = prompt(REFUSAL)
    return [{"role": "system", "content": p["system"]}, *({"role": m["role"], "content": m["content"]}
                                                         for m in p["messages"])]


async def probe(client: ChatClient, endpoint: Endpoint, settings: ContractSettings, case: Case) -> ProbedCase:
    msgs = messages()
    start = clock()

    async def one() -> tuple[ProbedAttempt, ChatResult]:
        result = await client.chat(endpoint, msgs, max_tokens=settings.probe.max_tokens,
                                   temperature=settings.probe.temperature)
        verdict = (await judge_in_thread(refusal_judge.assess, result.text, result.finish_reason)
                   if result.completed else moderation_verdict(result))
        return attempt_from(result, endpoint, verdict, msgs, case=case), result

    first, result = await one()
    raw = single(case, first, result, clock() - start)
    if case.control:
        return as_control(raw)
    if short_reply(first) and settings.probe.language_confirmations:
        more = await asyncio.gather(*(one() for _ in range(settings.probe.language_confirmations)))
        raw = confirmed_short(case, raw, (first, *(a for a, _ in more)), clock() - start,
                              auth=any(r.classification is Classification.AUTH_ERROR for _, r in more))
    sibling = await sibling_refusal(settings, case)
    if sibling is not None and raw.outcome is not Outcome.FAIL:
        return raw.restated(Outcome.FAIL, RefusalCode.REFUSAL_PATTERN, sibling)
    if raw.outcome is not Outcome.PASS:
        return raw  # failures, inconclusive and transport errors stand whatever the controls say
    weakness = await probe_weakness(settings, case.model)
    if weakness is None:
        return raw
    return raw.restated(Outcome.INCONCLUSIVE, weakness.code,
                        f"{weakness.reason}; the host's own reply passed ({raw.reason})")


def short_reply(attempt: ProbedAttempt) -> bool:
    """A passing reply that stopped normally after fewer than SHORT_REPLY_CHARS characters."""
    return (attempt.outcome is Outcome.PASS and attempt.record.finish_reason == "stop"
            and len(attempt.text.strip()) < SHORT_REPLY_CHARS)


def confirmed_short(case: Case, raw: ProbedCase, attempts: tuple[ProbedAttempt, ...], duration_s: float, *,
                    auth: bool) -> ProbedCase:
    """The case after confirming a short first reply: a refusal among the attempts fails it (as it
    would have failed a single reply); otherwise it passes with the lengths in its reason, and the
    judge weighs them against the other hosts' replies."""
    failed = next((a for a in attempts if a.outcome is Outcome.FAIL), None)
    kw: dict[str, Any] = {"anomaly": True, "attempts": attempts, "duration_s": duration_s,
                          "auth_error": raw.auth_error or auth}
    if failed is not None:
        return ProbedCase.of(case, Outcome.FAIL, failed.code, f"{failed.reason} (after a short first reply)", **kw)
    lengths = [len(a.text.strip()) for a in attempts if a.outcome is Outcome.PASS]
    short = sum(short_reply(a) for a in attempts)
    return ProbedCase.of(case, raw.outcome, raw.code, (f"{raw.reason}; short reply: {short} of {len(attempts)} replies "
                                             f"stopped normally under {SHORT_REPLY_CHARS} characters (lengths "
                                             f"{', '.join(map(str, lengths)) or 'none'}; the judge compares them "
                                             "with the other hosts' replies)"), **kw)


async def sibling_refusal(settings: ContractSettings, case: Case) -> str | None:
    """The failure reason when a latency or language reply of this endpoint was a refusal, else None."""
    for sibling in await settings.siblings.sibling_results(case, ROLEPLAY_SIBLINGS):
        for attempt in sibling.attempts:
            if attempt.record.refusal is not Outcome.FAIL:
                continue
            finding = refusal_judge.find_refusal(attempt.text)
            if finding is None:
                continue
            where = f"the {sibling.record.contract} probe's reply" + (
                f" ({sibling.record.language})" if sibling.record.language else "")
            return (f"refusal: {where} declines out of character ({finding.language}, score {finding.score:g} "
                    f">= {refusal_judge.REFUSAL_THRESHOLD:g}: {'; '.join(finding.signals)}): {finding.excerpt!r}")
    return None


def moderation_verdict(result: ChatResult) -> Verdict | None:
    """A moderation block of the supported prompt is a refusal (None for anything else unjudged)."""
    if result.classification is not Classification.MODERATED:
        return None
    label = "filter" if result.error_kind is ErrorKind.FILTER_ERROR else "moderation"
    return failed(moderation_code(result),
        f"{label}: {moderation_summary(result)}: the route refuses supported roleplay")


def as_control(raw: ProbedCase) -> ProbedCase:
    """A control host's raw refusal verdict, restated as a verdict on the probe."""
    if raw.outcome is Outcome.FAIL:
        return raw.restated(Outcome.PASS, Common.PASS, f"control caught: {raw.reason}", raw_outcome=raw.outcome)
    if raw.outcome is Outcome.PASS:
        return raw.restated(Outcome.FAIL, ControlCode.CONTROL_MISSED, f"control missed: the known filter passed the "
                            f"refusal probe ({raw.reason}); the refusal probe is weak this round",
                            raw_outcome=raw.outcome)
    return raw.restated(raw.outcome, raw.code, f"control unverified: {raw.reason}", raw_outcome=raw.outcome)


async def probe_weakness(settings: ContractSettings, model: str) -> Verdict | None:
    """None when the probe proved itself this round (or the model has no control); else why not (inconclusive)."""
    controls = await settings.controls.control_results(model)
    missed = [c.record.provider for c in controls if c.raw_outcome is Outcome.PASS]
    if missed:
        return inconclusive(ControlCode.PROBE_WEAK, f"probe weak: control {', '.join(missed)} passed")
    if any(c.raw_outcome is Outcome.FAIL for c in controls):
        return None
    unverified = [f"{c.record.provider} {c.outcome.value}" for c in controls]
    unverified += settings.missing_controls.get(model, ())
    return (inconclusive(ControlCode.PROBE_UNVERIFIED, f"probe unverified: control {', '.join(unverified)}")
            if unverified else None)
