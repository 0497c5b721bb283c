"""Refusal: a fixed roleplay continuation that represents supported traffic.

judge.refusal.assess fails a `content_filter` finish, an empty reply or a high-confidence
refusal (an in-story refusal by a character is not one). A moderation 403 on this prompt
(OpenRouter's `error.metadata.reasons`) fails too: the route refuses supported traffic before
generating, which is the silent filter this contract is for, only louder.

Positive control: hosts configured under `controls` are known to filter and are probed with
the same request. Their case judges the *probe*, not the host:
- the control was caught (its raw verdict is fail)  -> control case `pass`, reason "control caught: ...";
- the control passed                                -> control case `fail`, reason "control missed: ...":
  the probe is weak this round, and every refusal *pass* of the same model becomes
  `inconclusive` ("probe weak: control ember/fp8 passed") because a weak probe is no evidence
  of health; failures still stand;
- the control was unreachable or inconclusive, or is configured but was not discovered or not
  selected in this run (`-k`): the probe is unverified, passes become `inconclusive` too
  ("probe unverified: ..."), since nothing showed this round that the probe can catch a
  filter. A model without configured controls keeps its passes.
"""

from __future__ import annotations

from typing import Any

from dataclasses import replace

from judge import refusal as refusal_judge
from judge.verdict import Outcome, Verdict
from probes.cases import Case, CaseResult
from probes.contracts import (ChatClient, ContractSettings, attempt_from, clock, judge_in_thread,
                              moderation_summary, prompt, single)
from probes.records import ChatResult, Classification, Endpoint


def messages() -> list[dict[str, str]]:
    p = prompt("refusal")
    return [{"role": "system", "content": p["system"]}, *({"role": m["role"], "content": m["content"]}
                                                         for m in p["messages"])]


async def probe(client: ChatClient, endpoint: Endpoint, settings: ContractSettings, case: Case) -> CaseResult:
    msgs = messages()
    start = clock()
    result = await client.chat(endpoint, msgs, max_tokens=settings.probe.max_tokens,
                               temperature=settings.probe.temperature)
    verdict = (await judge_in_thread(refusal_judge.assess, result.text, result.finish_reason)
               if result.completed else moderation_verdict(result))
    raw = single(case, attempt_from(result, endpoint, verdict, msgs), result, clock() - start)
    if case.control:
        return as_control(raw)
    if raw.outcome is not Outcome.PASS:
        return raw  # failures, inconclusive and transport errors stand whatever the controls say
    weakness = await probe_weakness(settings, case.model)
    if weakness is None:
        return raw
    return _replace(raw, Outcome.INCONCLUSIVE, f"{weakness}; the host's own reply passed ({raw.reason})")


def moderation_verdict(result: ChatResult) -> Verdict | None:
    """A moderation block of the supported prompt is a refusal (None for anything else unjudged)."""
    if result.classification is not Classification.MODERATED:
        return None
    return Verdict("fail", f"moderation: {moderation_summary(result)}: the route refuses supported roleplay")


def as_control(raw: CaseResult) -> CaseResult:
    """A control host's raw refusal verdict, restated as a verdict on the probe."""
    if raw.outcome is Outcome.FAIL:
        return _replace(raw, Outcome.PASS, f"control caught: {raw.reason}", raw_outcome=raw.outcome)
    if raw.outcome is Outcome.PASS:
        return _replace(raw, Outcome.FAIL, f"control missed: the known filter passed the refusal probe "
                                           f"({raw.reason}); the refusal probe is weak this round",
                        raw_outcome=raw.outcome)
    return _replace(raw, raw.outcome, f"control unverified: {raw.reason}", raw_outcome=raw.outcome)


async def probe_weakness(settings: ContractSettings, model: str) -> str | None:
    """None when the probe proved itself this round (or the model has no control); else why not."""
    controls = await settings.controls.control_results(model)
    missed = [c.provider for c in controls if c.raw_outcome is Outcome.PASS]
    if missed:
        return f"probe weak: control {', '.join(missed)} passed"
    if any(c.raw_outcome is Outcome.FAIL for c in controls):
        return None
    unverified = [f"{c.provider} {c.outcome.value}" for c in controls] + list(settings.missing_controls.get(model, ()))
    return f"probe unverified: control {', '.join(unverified)}" if unverified else None


def _replace(raw: CaseResult, outcome: Outcome, reason: str, **kw: Any) -> CaseResult:
    return replace(raw, outcome=outcome, reason=reason, **kw)
