"""Truncated replies: a refusal-probe reply that stops normally but is far shorter than its peers' (pure;
docs/judge.md, Truncated replies). A host's own filter cuts the scene short and still ends it with
`stop`, so only the other hosts' lengths for the same prompt give it away.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import replace

from core.results import AttemptResult, CaseResult
from core.vocabulary import REFUSAL, Outcome
from judge.replies.refusal import RefusalCode
from judge.suspension.stats import fisher_greater

SHORT_FRACTION = 0.25      # "far shorter": under a quarter of what the peers write
MIN_PEERS = 3              # fewer peers say too little about what a normal length is
MIN_ATTEMPTS = 2           # the first reply and at least one confirmation, all short
ALPHA = 0.05               # one-sided: the host's replies are short more often than the peers'
STOPPED = "stop"           # the finish reason of a reply that ended by itself
_COMPLETE = (STOPPED, "length")


def _usable(a: AttemptResult) -> bool:
    return a.outcome == Outcome.PASS and a.chars is not None and a.finish_reason in _COMPLETE


def _is_short(a: AttemptResult, limit: float) -> bool:
    return _usable(a) and a.finish_reason == STOPPED and a.chars is not None and a.chars < limit


def _own_length(case: CaseResult) -> float | None:
    """The median length of a case's usable replies (None: it has none)."""
    own = [a.chars for a in case.attempts if _usable(a) and a.chars is not None]
    return statistics.median(own) if own else None


def judge_short_replies(cases: Sequence[CaseResult]) -> tuple[CaseResult, ...]:
    """One model's cases of a round, with short refusal replies marked and truncating hosts failed."""
    refusal = [c for c in cases if c.contract == REFUSAL and not c.control]
    if len(refusal) <= MIN_PEERS:
        return tuple(cases)
    lengths = {id(c): _own_length(c) for c in refusal}
    known = [v for v in lengths.values() if v is not None]
    if len(known) < MIN_PEERS:
        return tuple(cases)
    ceiling = SHORT_FRACTION * max(known)  # no reply longer than this can be short against any peers
    changed: dict[int, CaseResult] = {}
    for case in refusal:
        if not any(_is_short(a, ceiling) for a in case.attempts):
            continue
        peers = [c for c in refusal if c.provider != case.provider]
        typical_of = [v for c in peers if (v := lengths[id(c)]) is not None]
        if len(typical_of) < MIN_PEERS:
            continue
        typical = statistics.median(typical_of)
        limit = SHORT_FRACTION * typical
        marked = tuple(replace(a, short=True) if _is_short(a, limit) else a for a in case.attempts)
        short = sum(a.short for a in marked)
        if not short:
            continue
        changed[id(case)] = _verdict(replace(case, attempts=marked), short, limit, typical, peers)
    return tuple(changed.get(id(c), c) for c in cases)


def _verdict(case: CaseResult, short: int, limit: float, typical: float, peers: Sequence[CaseResult]) -> CaseResult:
    judged = sum(a.outcome in (Outcome.PASS, Outcome.FAIL) for a in case.attempts)
    peer_short = sum(_is_short(a, limit) for c in peers for a in c.attempts)
    peer_judged = sum(a.outcome in (Outcome.PASS, Outcome.FAIL) for c in peers for a in c.attempts)
    if case.outcome != Outcome.PASS or judged < MIN_ATTEMPTS or short < judged:
        return case  # evidence only: one short reply, a mixed run, or a case already decided otherwise
    p = fisher_greater(short, judged, peer_short, peer_judged)
    if p >= ALPHA:
        return case
    longest = max(a.chars or 0 for a in case.attempts if a.short)
    reason = (f"refusal: truncated replies: {short} of {judged} replies stopped normally after at most "
              f"{longest} characters, under a quarter of the other hosts' typical {typical:.0f} "
              f"(other hosts: {peer_short} of {peer_judged} short; one-sided Fisher p = {p:.2g}); "
              f"the probe's own verdict was: {case.reason}")
    # The refusal family's code: a truncated reply is how a host's filter refuses (history counts it so).
    code = RefusalCode.REFUSAL_PATTERN
    failed = tuple(replace(a, outcome=Outcome.FAIL, code=code) if a.short else a for a in case.attempts)
    return replace(case, outcome=Outcome.FAIL, code=code, reason=reason, attempts=failed)
