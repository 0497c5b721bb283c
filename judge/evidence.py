"""Evidence against peers: the rolling windows of the state, and the cards of decisions (pure).

`record_round` adds one round to each probed endpoint's window (judge/window.py), before the
streaks move. What a round adds, per contract, is one code per judged reply:

- every attempt of the endpoint's case: a confirmed language failure adds "ffp", a clean latency
  case "p", a transport error "t"; not-applicable cases add nothing and positive-control cases
  (they judge the probe) are never recorded;
- the refusal contract also gets the refusal check of every completed latency and language reply
  (probes/round/contracts: "more evidence at no extra cost"), so it holds 3 to 5 replies a round;
- refusal-probe replies far shorter than the peers' are "s" (judge/short_replies.py), or "f" when
  they failed the case (the short-reply check then marks them failed);
- while the model's refusal probe is weak or unverified (its positive control passed or gave no
  verdict), refusal passes are no evidence of health: they are recorded as inconclusive;
- failures the model-wide guard discounted are recorded as they were (every peer failed too, so
  the card shows the host as ordinary, which is the point).

Which rounds count: every complete round in which the endpoint was probed, except one that
started sooner than rules.min_round_gap_minutes after the endpoint's last counted round (a manual
re-run is the same evidence twice; judge/streaks.py sets it aside the same way). Frozen rounds
count: their transport errors and inconclusive replies are the evidence kept apart.

`decision_cards` turns the windows into evidence cards (judge/card.py) for a decision, and
`strength` orders several candidates when the capacity floor allows only some: the most
significant card first, then the longest failed streak, then the tag.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from core.policy import Policy
from core.results import AttemptResult, CaseResult, RoundResults
from core.vocabulary import Outcome
from judge.card import Card, make_card
from judge.short_replies import REFUSAL, judge_short_replies
from judge.state import JudgeState, ProviderState
from judge.window import FAIL, INCONCLUSIVE, PASS, SHORT, TRANSPORT, Tally

# Contracts whose replies are roleplay text the refusal judge can read (structured is JSON).
ROLEPLAY_CONTRACTS = ("latency", "language")
_CODE = {Outcome.PASS: PASS, Outcome.FAIL: FAIL, Outcome.TRANSPORT_ERROR: TRANSPORT,
         Outcome.INCONCLUSIVE: INCONCLUSIVE}


def record_round(state: JudgeState, report: RoundResults, policy: Policy) -> JudgeState:
    """The state with this round added to the window of every endpoint it probed."""
    weak = {(w.model, w.contract) for w in report.weak_probes} | {
        (u.model, u.contract) for u in report.unprobed_controls}
    by_model: dict[str, list[CaseResult]] = {}
    for case in report.cases:
        by_model.setdefault(case.model, []).append(case)
    models = dict(state.models)
    for model, cases in sorted(by_model.items()):
        judged = judge_short_replies(cases)
        providers = dict(models.get(model, {}))
        for provider, codes in sorted(round_codes(judged, refusal_weak=(model, REFUSAL) in weak).items()):
            ps = providers.get(provider, ProviderState())
            if not _set_aside(ps, report, policy):
                providers[provider] = replace(ps, window=ps.window.push(codes))
        models[model] = providers
    return replace(state, models=models)


def _set_aside(ps: ProviderState, report: RoundResults, policy: Policy) -> bool:
    last = ps.last_counted_at
    return last is not None and report.started_at - last < policy.min_round_gap


def round_codes(cases: Sequence[CaseResult], *, refusal_weak: bool = False) -> dict[str, dict[str, str]]:
    """provider -> contract -> this round's attempt codes (one model's cases, short replies judged)."""
    out: dict[str, dict[str, str]] = {}
    refusal_hosts = {c.provider for c in cases if c.contract == REFUSAL and not c.control}
    for case in sorted(cases, key=lambda c: (c.provider, c.contract)):
        if case.control or case.outcome == Outcome.NOT_APPLICABLE:
            continue
        codes = out.setdefault(case.provider, {})
        codes[case.contract] = codes.get(case.contract, "") + _own_codes(case)
        if case.contract in ROLEPLAY_CONTRACTS and case.provider in refusal_hosts:
            checks = "".join(PASS if a.refusal == Outcome.PASS else FAIL for a in case.attempts if a.refusal)
            if checks:
                codes[REFUSAL] = codes.get(REFUSAL, "") + checks
    for case in cases:
        codes = out.get(case.provider, {})
        # A case the probe (or the judge) failed without a failing reply of its own, e.g. a refusal
        # case failed by its siblings' replies, still shows as one failure.
        if case.outcome == Outcome.FAIL and not case.control and FAIL not in codes.get(case.contract, ""):
            codes[case.contract] = codes.get(case.contract, "") + FAIL
    if refusal_weak:
        for codes in out.values():
            if REFUSAL in codes:
                codes[REFUSAL] = codes[REFUSAL].replace(PASS, INCONCLUSIVE).replace(SHORT, INCONCLUSIVE)
    return out


def _own_codes(case: CaseResult) -> str:
    if not case.attempts:  # a results file without attempts: the case's own outcome
        return _CODE.get(case.outcome, "")
    return "".join(_attempt_code(a) for a in case.attempts)


def _attempt_code(a: AttemptResult) -> str:
    if a.short and a.outcome == Outcome.PASS:
        return SHORT
    return _CODE.get(a.outcome, "")


def peer_tally(state: JudgeState, model: str, provider: str, contract: str) -> tuple[Tally, int]:
    """The pooled tally of the model's other endpoints on `contract`, and how many had replies."""
    pooled, count = Tally(), 0
    for other, ps in sorted(state.models.get(model, {}).items()):
        if other == provider:
            continue
        t = ps.window.tally(contract)
        if t.attempts:
            pooled, count = pooled + t, count + 1
    return pooled, count


def card_for(state: JudgeState, model: str, provider: str, contract: str) -> Card:
    pooled, count = peer_tally(state, model, provider, contract)
    return make_card(contract, state.provider(model, provider).window.tally(contract), pooled, count)


def card_contracts(ps: ProviderState, failed_now: Iterable[str] = ()) -> tuple[str, ...]:
    """The contracts a decision's card covers: those failed this round, else those with failures
    in the window (most failures first)."""
    now = tuple(dict.fromkeys(failed_now))
    if now:
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
    return {p: tuple(card_for(state, model, p, c) for c in sorted(ps.window.contracts))
            for p, ps in sorted(state.models.get(model, {}).items())}
