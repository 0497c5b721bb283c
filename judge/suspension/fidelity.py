"""Answer fidelity against the peers: an endpoint fails only where the other hosts of its model do not
(pure; docs/contracts.md, the fidelity row). One mostly wrong reply outvoted by its confirmations is
the model's own slip: a healthy host's 1-2 % of them, chained across frozen rounds, would-suspended one
in a week-long fleet before.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import replace

from core.results import AttemptResult, CaseResult
from core.vocabulary import FIDELITY, Outcome
from judge.replies.fidelity import FidelityCode
from judge.replies.verdict import Common
from judge.suspension.stats import fisher_greater

MIN_PEERS = 2          # fewer peers say too little about what the model can do
ALPHA = 0.05


def _items(case: CaseResult) -> tuple[tuple[str, Outcome], ...]:
    """Every reply's items, pooled (a case has more than one reply after an anomaly)."""
    return tuple(item for a in case.attempts for item in a.items)


def _majority(attempts: Sequence[AttemptResult], kinds: frozenset[str]) -> bool | None:
    """True when a strict majority of the scored replies got most of their counted items right,
    False when one got most wrong, None when neither (a tie: one of each and a transport error)."""
    scored = [_right(a.items, kinds) for a in attempts if a.items]
    wrong = sum(2 * right < counted for right, counted in scored)
    if 2 * (len(scored) - wrong) > len(scored):
        return True
    return False if 2 * wrong > len(scored) else None


def _right(items: Sequence[tuple[str, Outcome]], kinds: frozenset[str]) -> tuple[int, int]:
    counted = [o for k, o in items if k in kinds]
    return sum(o == Outcome.PASS for o in counted), len(counted)


def judge_fidelity(cases: Sequence[CaseResult]) -> tuple[CaseResult, ...]:
    """One model's cases of a round, each fidelity case judged against the other endpoints'."""
    scored = [c for c in cases if c.contract == FIDELITY and not c.control and _items(c)]
    changed: dict[int, CaseResult] = {}
    for case in scored:
        peers = [c for c in scored if c.provider != case.provider]
        if len(peers) < MIN_PEERS:
            continue
        kinds = frozenset(k for c in peers for k, o in _items(c) if o == Outcome.PASS)
        changed[id(case)] = _verdict(case, peers, kinds)
    return tuple(changed.get(id(c), c) for c in cases)


def _verdict(case: CaseResult, peers: Sequence[CaseResult], kinds: frozenset[str]) -> CaseResult:
    items = _items(case)
    attempts = tuple(replace(a, items=tuple((k, o if k in kinds else Outcome.INCONCLUSIVE) for k, o in a.items))
                     for a in case.attempts)
    dropped = sorted({k for k, _ in items} - kinds)
    right, counted = _right(items, kinds)
    if counted == 0:
        if case.outcome not in (Outcome.PASS, Outcome.INCONCLUSIVE):
            return replace(case, attempts=attempts)
        return replace(case, outcome=Outcome.NOT_APPLICABLE, code=Common.NOT_APPLICABLE, attempts=attempts,
                       reason=f"fidelity: no peer answered any item type right this round ({', '.join(dropped)}): "
                              "the model cannot do them, nothing judged")
    peer_scores = [_right(_items(c), kinds) for c in peers]
    median = statistics.median([r / n for r, n in peer_scores if n] or [0.0])
    peer_wrong = sum(n - r for r, n in peer_scores)
    peer_counted = sum(n for _, n in peer_scores)
    tally = (f"{right} of {counted} items right vs the peers' median {median:.0%} ({len(peers)} peers"
             + (f"; dropped, no peer right: {', '.join(dropped)}" if dropped else "") + ")")
    if case.outcome not in (Outcome.PASS, Outcome.INCONCLUSIVE):
        return replace(case, attempts=attempts)  # decided otherwise already (e.g. limits honesty failed it)
    majority = _majority(case.attempts, kinds)
    if majority:
        return replace(case, outcome=Outcome.PASS, code=Common.PASS, attempts=attempts, reason=f"fidelity: {tally}")
    if majority is None:
        return replace(case, outcome=Outcome.INCONCLUSIVE, code=FidelityCode.FIDELITY_UNRESOLVED, attempts=attempts,
                       reason=f"fidelity: anomaly unresolved: {tally}")
    p = fisher_greater(counted - right, counted, peer_wrong, peer_counted)
    if median <= 0.5 or p >= ALPHA:
        return replace(case, outcome=Outcome.INCONCLUSIVE, code=FidelityCode.FIDELITY_AS_PEERS, attempts=attempts,
                       reason=f"fidelity: most items wrong, but not worse than the peers: {tally}, p = {p:.2g}")
    return replace(case, outcome=Outcome.FAIL, code=FidelityCode.FIDELITY_WRONG, attempts=attempts,
                   reason=f"fidelity: wrong answers: {tally}; one-sided Fisher p = {p:.2g}")
