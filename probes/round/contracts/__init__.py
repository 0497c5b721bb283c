"""The contracts (the four, and the optional tools, stop and fidelity). Each module has one
`async def probe(client, endpoint, settings, case)` returning a ProbedCase; the helpers here turn
one ChatResult into a ProbedAttempt the same way for all.

Outcome rules shared by every contract (why they are here and not in each module):
- only a COMPLETED generation is judged; a TRANSPORT_ERROR is `transport_error` (it freezes the
  host's streak instead of extending it);
- a ROUTING_MISMATCH (the pin did not hold: another host answered) is also `transport_error`,
  with a reason starting "routing mismatch": the reply says nothing about the pinned host, so it
  must never count as a quality verdict either way;
- an AUTH_ERROR is `transport_error` for the case and flags the whole round incomplete (our key,
  not the host);
- a failed reply to a request OpenRouter's guardrail flagged (router metadata) is `inconclusive`:
  OpenRouter's filter, never the host's refusal;
- a MODERATED answer (the host's moderation refused the prompt with a 403 before generating) is
  `inconclusive` everywhere but the refusal contract: no first token to time, no JSON, no text
  in any language, and no transport failure either. Refusing supported traffic is exactly what
  the refusal contract is about, so it judges the block (`fail`, naming the flagged categories).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import Any, Protocol

import yaml

from core.config import ProbeSettings
from core.field_rules import as_count, measurement, optional_text, seconds, tokens_per_second, writable_text
from core.results import AttemptResult
from core.vocabulary import ContractName, Outcome, contract
from judge.replies.verdict import Verdict, inconclusive, passed
from probes.http.records import ChatResult, Classification, Endpoint, ErrorKind
from probes.round.cases import AttemptExtras, Case, ProbedAttempt, ProbedCase, transport_code
from probes.round.reply_checks import ReplyFacts, run_checks

PROMPTS = Path(__file__).resolve().parent.parent / "prompts"

AUTH_REASON = "the upstream refused our API key: check OPENROUTER_API_KEY"


class ContractCode(StrEnum):
    """The codes every contract shares (judge/replies/verdict.py); a transport error's are
    probes/round/cases.py TransportCode's."""

    REASONING_BUDGET = "reasoning_budget"   # our max_tokens went to reasoning: nothing about the host
    MODERATION = "moderation"               # the host's moderation refused the prompt (ErrorKind.MODERATION)
    FILTER_ERROR = "filter_error"           # the host's filter answered with a typed error (ErrorKind.FILTER_ERROR)
    GUARDRAIL_FLAGGED = "guardrail_flagged"  # OpenRouter's guardrail flagged the request (router metadata)


class ChatClient(Protocol):
    async def chat(self, endpoint: Endpoint, messages: Sequence[Mapping[str, Any]], *, max_tokens: int,
                   response_format: Mapping[str, Any] | None = None, temperature: float | None = None,
                   deadline_s: float | None = None,
                   tools: Sequence[Mapping[str, Any]] | None = None, stop: Sequence[str] = ()) -> ChatResult: ...


class ControlBoard(Protocol):
    """Where a non-control refusal case learns what the positive controls of its model said."""

    async def control_results(self, model: str) -> tuple[ProbedCase, ...]: ...


class SiblingBoard(Protocol):
    """Where a refusal case finds the results of its endpoint's latency and language cases of this round."""

    async def sibling_results(self, case: Case, contracts: Sequence[ContractName]) -> tuple[ProbedCase, ...]: ...


class NoSiblings:
    """A board with no siblings (a contract run on its own, as in unit tests)."""

    async def sibling_results(self, case: Case, contracts: Sequence[ContractName]) -> tuple[ProbedCase, ...]:
        return ()


LanguageJudge = Callable[[str, str], Awaitable[Verdict]]


@dataclass(frozen=True, slots=True)
class ContractSettings:
    """What a contract needs beyond the client and the endpoint."""

    probe: ProbeSettings
    controls: ControlBoard
    judge_language: LanguageJudge
    missing_controls: Mapping[str, tuple[str, ...]]  # model -> "ember/fp8 not selected"...: controls not probed
    siblings: SiblingBoard = NoSiblings()  # the endpoint's other cases: refusal checks of their replies
    round_id: str = ""  # the round's id: the fidelity contract's items are drawn from it


@cache
def prompt(contract_name: ContractName) -> Any:
    """The contract's prompt data: the file its declaration names (core.vocabulary `Contract.prompt`)
    under probes/round/prompts/ (cached: read once per process)."""
    name = contract(contract_name).prompt
    if name is None:
        raise ValueError(f"the {contract_name} contract declares no prompt file (its prompt is built in code)")
    return yaml.safe_load((PROMPTS / f"{name}.yaml").read_text(encoding="utf-8"))


def _not_the_hosts(result: ChatResult, verdict: Verdict | None) -> Verdict | None:
    """The verdict, inconclusive when what it saw is not the host's doing."""
    if verdict is not None and result.reasoning_only:
        # A reasoning model spent the probe's whole budget thinking: that is our max_tokens, not
        # the host's behaviour, so it must never read as an empty reply or a refusal.
        verdict = inconclusive(ContractCode.REASONING_BUDGET,
                               f"the reply spent its budget on reasoning (finish_reason {result.finish_reason!r}, "
                               "no text): says nothing about the host")
    guard = result.router.guardrail if result.router is not None else None
    if verdict is not None and verdict.failed and guard is not None:
        # OpenRouter's own filter flagged the request (and may have redacted it): a failed reply to
        # what it let through is not the host's doing (docs/openrouter-wire.md §6).
        verdict = inconclusive(ContractCode.GUARDRAIL_FLAGGED,
                               f"OpenRouter's guardrail {ascii(guard)} flagged this request: its filter, not the "
                               f"host's ({verdict.reason})")
    return verdict


def attempt_from(result: ChatResult, endpoint: Endpoint, verdict: Verdict | None,
                 messages: Sequence[Mapping[str, Any]], *, case: Case | None = None,
                 kept: Verdict | None = None) -> ProbedAttempt:
    """One request as a ProbedAttempt: the verdict when completed, else the transport classification.

    Every reply check that applies to the case's contract runs here, from one list and one set
    of facts (probes/round/reply_checks.py); without a case only the checks of every contract run.
    The record is built by the rules results.json is read by (core.results): upstream strings
    made writable, a measurement that is none left absent.
    """
    verdict = _not_the_hosts(result, verdict)
    facts = ReplyFacts.of(result, endpoint, contract=case.contract if case else None,
                          language=case.language if case else None)
    found = run_checks(facts, verdict, case.contract if case else None)
    verdict = found.verdict
    if kept is not None:
        outcome, code, reason = kept.outcome, kept.code, kept.reason
    elif verdict is None:
        outcome, code, reason = transport_outcome(result)
    else:
        outcome, code, reason = verdict.outcome, verdict.code, verdict.reason
    usage = result.usage
    prompt_tokens = usage.prompt_tokens if usage else 0
    completion_tokens = usage.completion_tokens if usage else 0
    billing = facts.billing()
    # Billing honesty's evidence (issue 22): the usage a completed stream reported or not (the
    # judge counts streams without usage against peers), and what it was billed against listed.
    usage_reported = (usage is not None) if result.completed and result.chunks else None
    record = AttemptResult(
        outcome=outcome, code=code, reason=writable_text(reason), ttft_s=seconds(result.ttft_s),
        total_s=seconds(result.total_s),
        finish_reason=optional_text(result.finish_reason),
        error_kind=result.error_kind.value if result.error_kind else None,
        served_by=optional_text(result.served_by), requests=result.requests,
        decode_tps=tokens_per_second(facts.decode_tps()), advertised_p50_tps=tokens_per_second(endpoint.throughput_p50),
        advertised_slowest_tps=tokens_per_second(endpoint.throughput_slowest), usage_reported=usage_reported,
        prompt_tokens=as_count(prompt_tokens, default=None) if usage_reported else None,
        billed_usd=measurement(round(billing.billed, 10)) if billing else None,
        listed_usd=measurement(round(billing.listed, 10)) if billing else None,
        refusal=found.refusal, integrity=found.integrity, integrity_reason=writable_text(found.integrity_reason))
    underbilled = (billing.underbilled,) if billing and billing.underbilled else ()  # a note: decides nothing
    extras = AttemptExtras(
        prompt=tuple(dict(m) for m in messages), classification=result.classification.value,
        prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
        # The estimate comes from the endpoint's advertised pricing, so rounds are comparable
        # whether or not the upstream reported a cost.
        cost_usd=prompt_tokens * endpoint.prompt_price + completion_tokens * endpoint.completion_price,
        service_tier=result.service_tier, notes=result.notes + underbilled)
    return ProbedAttempt(record, extras).with_text(result.text)


def moderation_summary(result: ChatResult) -> str:
    """'the host's moderation refused the prompt before generating (HTTP 403; flagged: "x")', or
    for a typed filter error 'the host's filter answered with an error (HTTP 400; "refusal")'.

    The categories were cleaned by the client; they are quoted here (JSON string escaping) so a
    category can never read as part of the sentence around it.
    """
    flagged = ", ".join(json.dumps(c, ensure_ascii=False) for c in result.flagged) or "no category given"
    if result.error_kind is ErrorKind.FILTER_ERROR:
        where = f"HTTP {result.http_status}" if result.http_status != 200 else "in the stream"
        return f"the host's filter answered with an error ({where}; {flagged})"
    return f"the host's moderation refused the prompt before generating (HTTP 403; flagged: {flagged})"


def moderation_code(result: ChatResult) -> ContractCode:
    """A moderated request's code: the host's filter (a typed error) or its moderation (a 403)."""
    return ContractCode.FILTER_ERROR if result.error_kind is ErrorKind.FILTER_ERROR else ContractCode.MODERATION


def transport_outcome(result: ChatResult) -> tuple[Outcome, str, str]:
    """The outcome, code and reason of a request that produced nothing to judge."""
    if result.classification is Classification.MODERATED:
        label = "filter" if result.error_kind is ErrorKind.FILTER_ERROR else "moderation"
        return Outcome.INCONCLUSIVE, moderation_code(result), (
            f"{label}: {moderation_summary(result)}: nothing to judge here; the refusal contract judges the block")
    detail = result.error_message or (result.error_kind.value if result.error_kind else "no detail")
    code = transport_code(result.error_kind)
    if result.classification is Classification.AUTH_ERROR:
        return Outcome.TRANSPORT_ERROR, transport_code(ErrorKind.AUTH), f"{AUTH_REASON} ({detail})"
    if result.classification is Classification.ROUTING_MISMATCH:
        # The name is upstream text: shown as ascii() shows it (a tool name is shown so too), so no
        # control, link or invisible character of it reaches a reason.
        served = ascii(result.served_by) if result.served_by else "?"
        return (Outcome.TRANSPORT_ERROR, transport_code(ErrorKind.ROUTING),
                f"routing mismatch: served by {served} ({detail})")
    return Outcome.TRANSPORT_ERROR, code, f"transport: {detail}"


def single(case: Case, attempt: ProbedAttempt, result: ChatResult, duration_s: float) -> ProbedCase:
    """A one-request case ends as its one attempt."""
    return ProbedCase.of(case, attempt.outcome, attempt.code, attempt.reason, duration_s=duration_s,
                         attempts=(attempt,),
                         auth_error=result.classification is Classification.AUTH_ERROR)


async def confirmed(case: Case, one: Callable[[], Awaitable[tuple[ProbedAttempt, bool]]], confirmations: int,
                    start: float, *, anomalous: Callable[[ProbedAttempt], bool],
                    decide: Callable[[tuple[ProbedAttempt, ...]], Verdict],
                    again: Callable[[tuple[ProbedAttempt, ...]], bool] | None = None) -> ProbedCase:
    """The first attempt decides, unless it is anomalous: then `confirmations` more are sent at once
    and `decide` (a strict majority) weighs all of them. When `again` says those attempts are not
    yet enough (a unanimity that chance alone reaches too often), `confirmations` more are sent and
    `decide` weighs them all. `one()` returns (attempt, auth error?)."""
    first, auth = await one()
    if not anomalous(first) or confirmations == 0:
        return ProbedCase.of(case, first.outcome, first.code, first.reason, duration_s=clock() - start,
                             attempts=(first,), auth_error=auth)
    more = await asyncio.gather(*(one() for _ in range(confirmations)))
    if again is not None and again((first, *(a for a, _ in more))):
        more += await asyncio.gather(*(one() for _ in range(confirmations)))
    attempts = (first, *(a for a, _ in more))
    decided = decide(attempts)
    return ProbedCase.of(case, decided.outcome, decided.code, decided.reason, anomaly=True, duration_s=clock() - start,
                         attempts=attempts, auth_error=auth or any(a for _, a in more))


def strict_majority(attempts: tuple[ProbedAttempt, ...]) -> Verdict | None:
    """FAIL (with the first failure's code) or PASS when more than half of the attempts say so,
    else None (the caller says why not)."""
    fails = [a for a in attempts if a.outcome is Outcome.FAIL]
    passes = [a for a in attempts if a.outcome is Outcome.PASS]
    need = len(attempts) // 2 + 1
    if len(fails) >= need:
        return Verdict(Outcome.FAIL, fails[0].code, f"{fails[0].reason} (confirmed: {tally(attempts)})")
    if len(passes) >= need:
        return passed(f"anomaly not confirmed: {len(passes)} of {len(attempts)} passed (first: {attempts[0].reason})")
    return None


# Production evidence's confirmation (judge/suspension/production.py): the contract runs this many
# times, each run judged as always, and the strict majority of the runs decides whether it agrees.
CONFIRMATION_RUNS = 3


def confirmation(case: Case, runs: Sequence[ProbedCase]) -> ProbedCase:
    """A confirmation case: the first run is the case as it always is, every run's attempts are its
    evidence, and the strict majority of the runs' outcomes (fail, pass, else inconclusive) is its
    `confirmation`, which the judge reads (the rounds' streaks see the first run only)."""
    first, outcomes = runs[0], [r.outcome for r in runs]
    majority = next((o for o in (Outcome.FAIL, Outcome.PASS) if outcomes.count(o) > len(runs) // 2),
                    Outcome.INCONCLUSIVE)
    merged = ProbedCase.of(
        case, first.outcome, first.code,
        f"{first.reason} (confirmation: {outcomes.count(Outcome.FAIL)} of {len(runs)} runs failed)",
        attempts=tuple(a for r in runs for a in r.attempts), anomaly=first.record.anomaly,
        duration_s=max(r.record.duration_s or 0.0 for r in runs), auth_error=any(r.auth_error for r in runs))
    return dataclasses.replace(merged, record=dataclasses.replace(merged.record, confirmation=majority),
                               raw_outcome=first.raw_outcome)


def tally(attempts: tuple[ProbedAttempt, ...]) -> str:
    fails = sum(1 for a in attempts if a.outcome is Outcome.FAIL)
    return f"{fails} of {len(attempts)} attempts failed"


async def judge_in_thread(fn: Callable[..., Verdict], *args: Any) -> Verdict:
    """Judging is CPU work: off the event loop so other streams' timings are not delayed."""
    return await asyncio.to_thread(fn, *args)


def clock() -> float:
    return asyncio.get_running_loop().time()
