"""The checks every completed reply gets, from one list (issues 22 and 30): a reply's facts are
built once (`ReplyFacts.of`), and each check of REPLY_CHECKS reads them, on the contracts its
`applies_to` names, at no extra request.

A check either *fails the case* (stream integrity, limits honesty, billing honesty, hidden
completion tokens: the host's defect, whatever the contract asked) or is *evidence* the judge
weighs later (an out-of-character refusal on a latency or language reply, for the refusal case;
reply integrity, for the language case: judge/replies/integrity.py), recorded on the attempt as
`refusal` / `integrity`, pass or fail.

The contract's own verdict comes first: a failed one is the more specific finding, and an
inconclusive one stays inconclusive (a reply check never turns "this says nothing about the
host" into a fail: the tools contract's "the reply reached max_tokens" is our budget, not the
host). Only a pass is replaced by the first failed check, so the case fails with the check's
reason and its own code (judge/replies/verdict.py). A reply that was not completed is
never checked: its text and usage say nothing a transport error does not already say. Billing
needs the endpoint's listed prices (the same round's discovery); facts built without an endpoint
leave billing out.

Adding a check: a pure function in judge/replies/ and one entry of REPLY_CHECKS here (plus
docs/contracts.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from core.vocabulary import LANGUAGE, LATENCY, REFUSAL, STRUCTURED, ContractName, Outcome
from judge.replies.billing import (
    Bill,
    BilledUsage,
    HiddenTokensFacts,
    Prices,
    assess_cost,
    assess_hidden_tokens,
    bill,
)
from judge.replies.decode_speed import DecodeFacts, decode_tps
from judge.replies.integrity import check_reply
from judge.replies.limits import LimitsFacts, assess_limits
from judge.replies.refusal import RefusalCode, find_refusal
from judge.replies.stream_integrity import assess_deltas
from judge.replies.verdict import Verdict, failed
from probes.http.records import ChatResult, Endpoint

# The contract whose replies are JSON (integrity reads their start as JSON, not as a word).
JSON_CONTRACT = STRUCTURED


@dataclass(frozen=True, slots=True)
class ReplyFacts:
    """What the checks read off one reply, built once (`of`): the text and the calls, the usage as
    billed and the listing's prices, the cap sent, reasoning, and the stream's timing."""

    completed: bool
    text: str                        # the visible text (scrubbed like every upstream string kept)
    judged_text: bool                # completed, not reasoning only, with text: the text checks run
    deltas: tuple[str, ...]
    language: str                    # the language the reply was asked in
    json_reply: bool
    usage: BilledUsage | None
    prices: Prices | None            # None: no endpoint listing (billing left out)
    limits: LimitsFacts
    hidden: HiddenTokensFacts
    decode: DecodeFacts
    guarded: bool = False            # OpenRouter's guardrail flagged the request (router metadata)

    @classmethod
    def of(cls, result: ChatResult, endpoint: Endpoint | None, *, contract: ContractName | None = None,
           language: str | None = None) -> ReplyFacts:
        usage = result.usage
        reasoning = _reasoning(result)
        thinks = endpoint is not None and (endpoint.thinks_by_default is True or endpoint.thinking_mandatory)
        tokens = usage.completion_tokens if usage else None
        call_bytes = sum(len("".join(c.name_parts).encode("utf-8", "replace"))
                         + len(c.arguments.encode("utf-8", "replace")) for c in result.tool_calls)
        return cls(
            completed=result.completed, text=result.text,
            judged_text=result.completed and not result.reasoning_only and bool(result.text.strip()),
            deltas=result.deltas, language=language or "en", json_reply=contract == JSON_CONTRACT,
            usage=_billed(result), prices=_prices(endpoint) if endpoint is not None else None,
            limits=LimitsFacts(cap=result.max_tokens_sent, completion_tokens=tokens,
                               finish_reason=result.finish_reason, reasoning=reasoning,
                               cut_by_client=result.truncated_by_client,
                               reasoning_tokens=usage.reasoning_tokens if usage else 0),
            hidden=HiddenTokensFacts(completion_tokens=tokens, text_bytes=len(result.text.encode("utf-8", "replace")),
                                     finish_reason=result.finish_reason, reasoning=reasoning or thinks,
                                     cut_by_client=result.truncated_by_client, call_bytes=call_bytes,
                                     calls=len(result.tool_calls)),
            decode=DecodeFacts(completed=result.completed, finish_reason=result.finish_reason, completion_tokens=tokens,
                               ttft_s=result.ttft_s, end_s=result.generated_s, reasoning=reasoning),
            guarded=result.router is not None and result.router.guardrail is not None,
        )

    def billing(self) -> Bill | None:
        """A completed reply's bill against its listing (judge/replies/billing.py bill): the billed and
        listed cost the attempt records and its underbilled note; None when there is nothing to compare."""
        return bill(self.usage, self.prices) if self.completed else None

    def decode_tps(self) -> float | None:
        """The reply's decode speed (tokens/s after the first token), or None: the judge weighs it
        against the peers' (judge/suspension/decode_speed.py), so it fails nothing here."""
        return decode_tps(self.decode)


class Effect(StrEnum):
    """What a check's finding does."""

    FAILS_CASE = "fails_case"   # a passed case fails with the finding's reason
    REFUSAL = "refusal"         # recorded on the attempt, evidence for the refusal case
    INTEGRITY = "integrity"     # recorded on the attempt (with its reason): evidence for the language case


@dataclass(frozen=True, slots=True)
class ReplyCheck:
    """One check of a completed reply: `find` returns the defect's failed verdict, or None."""

    name: str
    find: Callable[[ReplyFacts], Verdict | None]
    effect: Effect = Effect.FAILS_CASE
    contracts: frozenset[ContractName] | None = None   # None: every contract
    needs_text: bool = False                  # runs only on a reply with text to read (ReplyFacts.judged_text)

    def applies_to(self, contract: ContractName | None) -> bool:
        return self.contracts is None or contract in self.contracts

    def runs_on(self, facts: ReplyFacts) -> bool:
        return facts.completed and (facts.judged_text or not self.needs_text)


def _failed(verdict: Verdict | None) -> Verdict | None:
    return verdict if verdict is not None and verdict.failed else None


def _refusal(facts: ReplyFacts) -> Verdict | None:
    found = None if facts.guarded else find_refusal(facts.text)   # a guardrail's doing is no host's refusal
    return None if found is None else failed(RefusalCode.REFUSAL_PATTERN, "an out-of-character refusal")


REPLY_CHECKS: tuple[ReplyCheck, ...] = (
    ReplyCheck("stream integrity", lambda f: _failed(assess_deltas(f.deltas))),
    ReplyCheck("limits", lambda f: _failed(assess_limits(f.limits))),
    ReplyCheck("billing", lambda f: _failed(assess_cost(f.usage, f.prices))),
    ReplyCheck("hidden tokens", lambda f: _failed(assess_hidden_tokens(f.hidden))),
    # More evidence at no extra cost (issue 10): the refusal case of the same endpoint fails on a
    # refusal found here (probes/round/contracts/refusal.py).
    ReplyCheck("refusal", _refusal, Effect.REFUSAL,   # the check's name
               frozenset({LATENCY, LANGUAGE}), needs_text=True),
    # The host's corruption is in all its replies (judge/replies/integrity.py); the tools, stop and
    # fidelity replies are left out: calls, a cut text and numbered answers are not prose.
    ReplyCheck("integrity", lambda f: check_reply(f.text, f.language, json_reply=f.json_reply), Effect.INTEGRITY,
               frozenset({LATENCY, LANGUAGE, REFUSAL, STRUCTURED}), needs_text=True),
)


@dataclass(frozen=True, slots=True)
class Findings:
    """What the checks of one reply found: the verdict the case keeps, and the recorded evidence
    (None: not checked)."""

    verdict: Verdict | None
    refusal: Outcome | None = None
    integrity: Outcome | None = None
    integrity_reason: str = ""


def run_checks(facts: ReplyFacts, verdict: Verdict | None, contract: ContractName | None,
               checks: tuple[ReplyCheck, ...] = REPLY_CHECKS) -> Findings:
    """Every check that applies to `contract` on one reply (module docstring: which verdicts a check replaces)."""
    replaced: Verdict | None = None
    refusal: Outcome | None = None
    integrity: Outcome | None = None
    integrity_reason = ""
    for check in checks:
        if not check.applies_to(contract) or not check.runs_on(facts):
            continue
        if check.effect is Effect.FAILS_CASE:
            if replaced is None and verdict is not None and verdict.passed:
                replaced = check.find(facts)
        elif check.effect is Effect.REFUSAL:
            refusal = Outcome.FAIL if check.find(facts) else Outcome.PASS
        else:
            defect = check.find(facts)
            integrity, integrity_reason = (Outcome.FAIL, defect.reason) if defect else (Outcome.PASS, "")
    return Findings(replaced or verdict, refusal, integrity, integrity_reason)


def _reasoning(result: ChatResult) -> bool:
    """Reasoning asked for, seen or reported."""
    usage = result.usage
    return (result.reasoning_requested or result.reasoning_seen or bool(result.reasoning_text)
            or (usage is not None and usage.reasoning_tokens > 0))


def _prices(endpoint: Endpoint) -> Prices:
    """The endpoint's listed prices, each at its highest (probes/http/discovery.py)."""
    return Prices(prompt=endpoint.prompt_price_high or endpoint.prompt_price,
                  completion=endpoint.completion_price_high or endpoint.completion_price,
                  request=endpoint.request_price, cache_read=endpoint.cache_read_price,
                  cache_write=endpoint.cache_write_price, reasoning=endpoint.reasoning_price,
                  web_search=endpoint.web_search_price)


def _billed(result: ChatResult) -> BilledUsage | None:
    u = result.usage
    if u is None:
        return None
    return BilledUsage(prompt_tokens=u.prompt_tokens, completion_tokens=u.completion_tokens, cost=u.cost_usd,
                       cached_tokens=u.cached_tokens, cache_write_tokens=u.cache_write_tokens,
                       reasoning_tokens=u.reasoning_tokens, web_searches=u.web_searches)
