"""Evidence against peers (pure; docs/judge.md, Evidence against peers): `add_round_to_windows` adds a
round's codes to each probed endpoint's window, `decision_cards` turns the windows into a decision's
cards, `strength` orders the candidates when the capacity floor allows only some. Failures the
model-wide guard discounted are recorded as they were: every peer failed too, so the card shows the
host as ordinary, which is the point.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from core.policy import Policy
from core.results import AttemptResult, CaseResult, RoundResults
from core.vocabulary import LANGUAGE, LATENCY, REFUSAL, Outcome
from judge.replies.integrity import INTEGRITY_CONTRACT, checked
from judge.replies.listing import ListedLimits
from judge.suspension.card import ALPHA, Card, make_card
from judge.suspension.decode_speed import DECODE, decode_codes
from judge.suspension.reliability import RELIABILITY, reliability_codes
from judge.suspension.round import judge_peers
from judge.suspension.state import JudgeState, ProviderState
from judge.suspension.stats import fisher_greater
from judge.suspension.window import FAIL, INCONCLUSIVE, PASS, SHORT, TRANSPORT, Tally

# Billing honesty's evidence (docs/contracts.md): one code per completed stream, "f" without usage; no case has it.
USAGE = "stream_usage"
# Contracts whose replies are roleplay text the refusal judge can read (structured is JSON).
ROLEPLAY_CONTRACTS = (LATENCY, LANGUAGE)
_CODE = {Outcome.PASS: PASS, Outcome.FAIL: FAIL, Outcome.TRANSPORT_ERROR: TRANSPORT,
         Outcome.INCONCLUSIVE: INCONCLUSIVE}


def add_round_to_windows(state: JudgeState, report: RoundResults, policy: Policy) -> JudgeState:
    """The state with this round added to the window of every endpoint it probed."""
    weak = {(w.model, w.contract) for w in report.weak_probes} | {
        (u.model, u.contract) for u in report.unprobed_controls}
    by_model: dict[str, list[CaseResult]] = {}
    for case in report.cases:
        by_model.setdefault(case.model, []).append(case)
    models = dict(state.models)
    reliability = reliability_codes(report)
    for model, cases in sorted(by_model.items()):
        judged = judge_peers(cases)
        providers = dict(models.get(model, {}))
        billing = billed_and_listed(cases)
        for provider, codes in sorted(round_codes(judged, refusal_weak=(model, REFUSAL) in weak).items()):
            if rel := reliability.get(model, {}).get(provider):
                codes = {**codes, RELIABILITY: rel}
            ps = providers.get(provider, ProviderState())
            if not _set_aside(ps, report, policy):
                providers[provider] = _counted(ps, codes, billing.get(provider))
        models[model] = providers
    for model, entry in sorted(report.models.items()):  # the limits discovery listed, for next round's notes
        if not entry.limits:
            continue
        providers = dict(models.get(model, {}))
        for provider, (ctx, most) in sorted(entry.limits.items()):
            ps = providers.get(provider, ProviderState())
            providers[provider] = replace(ps, limits=ListedLimits(ctx, most))
        models[model] = providers
    return replace(state, models=models)


def _counted(ps: ProviderState, codes: Mapping[str, str], billed: tuple[float, float] | None) -> ProviderState:
    """The endpoint's state with this round's codes and bill; as it was when they break the arithmetic
    (one host's evidence cannot abort the round for the others: docs/judge.md)."""
    try:
        return replace(ps, window=ps.window.push(codes), billing=ps.billing if billed is None
                       else ps.billing.push(*billed))
    except (ArithmeticError, ValueError):
        return ps


def billed_and_listed(cases: Iterable[CaseResult]) -> dict[str, tuple[float, float]]:
    """provider -> (billed, listed) USD this round over its replies with a cost (controls too: the host billed them)."""
    out: dict[str, tuple[float, float]] = {}
    for case in cases:
        for a in case.attempts:
            if a.billed_usd is not None and a.listed_usd is not None:
                billed, listed = out.get(case.provider, (0.0, 0.0))
                out[case.provider] = (billed + a.billed_usd, listed + a.listed_usd)
    return out


def _set_aside(ps: ProviderState, report: RoundResults, policy: Policy) -> bool:
    last = ps.last_counted_at
    return last is not None and report.started_at - last < policy.min_round_gap


def round_codes(cases: Sequence[CaseResult], *, refusal_weak: bool = False) -> dict[str, dict[str, str]]:
    """provider -> contract -> this round's attempt codes (one model's cases, short replies judged)."""
    out: dict[str, dict[str, str]] = {}
    refusal_hosts = {c.provider for c in cases if c.contract == REFUSAL and not c.control}
    language_hosts = {c.provider for c in cases if c.contract == INTEGRITY_CONTRACT and not c.control
                      and c.outcome != Outcome.NOT_APPLICABLE}
    for case in sorted(cases, key=lambda c: (c.provider, c.contract)):
        if case.control or case.outcome == Outcome.NOT_APPLICABLE:
            continue
        codes = out.setdefault(case.provider, {})
        codes[case.contract] = codes.get(case.contract, "") + _own_codes(case)
        for contract, more in _checks(case, case.provider in refusal_hosts, case.provider in language_hosts).items():
            if more:
                codes[contract] = codes.get(contract, "") + more
    for case in cases:
        codes = out.get(case.provider, {})
        # A case the probe (or the judge) failed without a failing reply of its own, e.g. a refusal
        # case failed by its siblings' replies, still shows as one failure.
        if case.outcome == Outcome.FAIL and not case.control and FAIL not in codes.get(case.contract, ""):
            codes[case.contract] = codes.get(case.contract, "") + FAIL
    for provider, decode in decode_codes(cases).items():
        if provider in out:
            out[provider][DECODE] = decode
    if refusal_weak:
        for codes in out.values():
            if REFUSAL in codes:
                codes[REFUSAL] = codes[REFUSAL].replace(PASS, INCONCLUSIVE).replace(SHORT, INCONCLUSIVE)
    return out


def _checks(case: CaseResult, refusal_host: bool, language_host: bool) -> dict[str, str]:
    """What one case's replies add to the refusal (a roleplay case), integrity and usage codes of its host."""
    return {
        REFUSAL: "".join(PASS if a.refusal == Outcome.PASS else FAIL for a in case.attempts if a.refusal)
        if case.contract in ROLEPLAY_CONTRACTS and refusal_host else "",
        INTEGRITY_CONTRACT: "".join(PASS if a.integrity == Outcome.PASS else FAIL for a in checked(case.attempts))
        if case.contract != INTEGRITY_CONTRACT and language_host else "",
        USAGE: "".join(PASS if a.usage_reported else FAIL for a in case.attempts if a.usage_reported is not None)}


def _own_codes(case: CaseResult) -> str:
    if not case.attempts:  # a results file without attempts: the case's own outcome
        return _CODE.get(case.outcome, "")
    if case.attempts[0].items:  # fidelity: one code per item of every reply (a dropped item type: inconclusive)
        return "".join(_CODE.get(o, "") for a in case.attempts for _, o in a.items)
    return "".join(_attempt_code(a) for a in case.attempts)


def _attempt_code(a: AttemptResult) -> str:
    if a.short and a.outcome == Outcome.PASS:
        return SHORT
    return _CODE.get(a.outcome, "")


def failing_endpoints(state: JudgeState, model: str, contract: str) -> frozenset[str]:
    """The model's endpoints that fail `contract` significantly against the typical ones: set aside as
    peers (docs/judge.md, A fair peer baseline)."""
    tallies = {p: t for p, ps in sorted(state.models.get(model, {}).items())
               if (t := ps.window.tally(contract)).attempts}
    if len(tallies) < 2:
        return frozenset()
    median = statistics.median(_rate(t) for t in tallies.values())
    typical = [p for p, t in tallies.items() if _rate(t) <= median]
    failing = set()
    for p, t in tallies.items():
        reference = sum((tallies[q] for q in typical if q != p), Tally())
        if t.failures and reference.attempts and fisher_greater(
                t.failures, t.attempts, reference.failures, reference.attempts) < ALPHA:
            failing.add(p)
    return frozenset(failing)


def _rate(t: Tally) -> float:
    return t.failures / t.attempts


def peer_tally(state: JudgeState, model: str, provider: str, contract: str,
               failing: frozenset[str] | None = None) -> tuple[Tally, int, tuple[str, ...]]:
    """The pooled tally of the model's other endpoints on `contract`, how many had replies, and those set
    aside (failing_endpoints; all stay peers when setting them aside would leave none)."""
    aside = failing_endpoints(state, model, contract) if failing is None else failing
    others = [(p, t) for p, ps in sorted(state.models.get(model, {}).items())
              if p != provider and (t := ps.window.tally(contract)).attempts]
    kept = [(p, t) for p, t in others if p not in aside] or others
    names = {p for p, _ in kept}
    set_aside = tuple(p for p, _ in others if p not in names)
    return sum((t for _, t in kept), Tally()), len(kept), set_aside


def card_for(state: JudgeState, model: str, provider: str, contract: str,
             failing: frozenset[str] | None = None) -> Card:
    pooled, count, set_aside = peer_tally(state, model, provider, contract, failing)
    return make_card(contract, state.provider(model, provider).window.tally(contract), pooled, count, set_aside)


def card_contracts(ps: ProviderState, failed_now: Iterable[str] = ()) -> tuple[str, ...]:
    """The contracts a decision's card covers: those failed this round, else those with failures
    in the window (most failures first)."""
    now = tuple(dict.fromkeys(failed_now))
    if now:
        # A latency case the decode speed failed (judge/suspension/decode_speed.py) rests on the
        # window's decode evidence: its card goes with the latency card.
        if LATENCY in now and ps.window.tally(DECODE).failures:
            now += (DECODE,)
        return now
    with_failures = [(c, ps.window.tally(c).failures) for c in ps.window.contracts]
    return tuple(c for c, n in sorted(with_failures, key=lambda x: (-x[1], x[0])) if n)


def decision_cards(state: JudgeState, model: str, provider: str, failed_now: Iterable[str] = ()) -> tuple[Card, ...]:
    """The evidence cards of a decision about one endpoint, from the state after the round."""
    contracts = card_contracts(state.provider(model, provider), failed_now)
    return tuple(card_for(state, model, provider, c) for c in contracts)


def weak(cards: Sequence[Card]) -> bool:
    """Weak evidence: cards exist and none shows the host significantly worse than its peers."""
    return bool(cards) and not any(c.significant for c in cards)


def strength(cards: Sequence[Card], failed_streak: int, provider: str) -> tuple[float, int, str]:
    """Sort key: the most significant card first, then the longest failed streak, then the tag."""
    p = min((c.p_value for c in cards if c.p_value is not None), default=1.0)
    return p, -failed_streak, provider


def failed_contracts(evidence: Iterable[tuple[str, str]]) -> tuple[str, ...]:
    """The contracts of (contract, outcome) pairs that failed."""
    return tuple(c for c, o in evidence if o == Outcome.FAIL)


def cards_by_endpoint(state: JudgeState, model: str) -> Mapping[str, tuple[Card, ...]]:
    """Every endpoint's current cards (`canary status`): each contract of its window."""
    endpoints = state.models.get(model, {})
    contracts = sorted({c for ps in endpoints.values() for c in ps.window.contracts})
    failing = {c: failing_endpoints(state, model, c) for c in contracts}  # once per contract, not per card
    return {p: tuple(card_for(state, model, p, c, failing[c]) for c in sorted(ps.window.contracts))
            for p, ps in sorted(endpoints.items())}
