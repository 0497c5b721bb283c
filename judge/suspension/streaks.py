"""Moving one provider's streaks by one classified round, under the two time rules (pure):

    frozen round in which every contract the       the failed streak ends: failed = 0 (clean
    pending failed streak failed on passed, at     does not move, the round is not clean; nor
    least min_round_gap and at most                does last_counted_at)
    pending_window after last_counted_at
    any other frozen round                         nothing moves
    started < min_round_gap after last_counted_at  set aside: frozen for the streaks (a manual
                                                   re-run minutes after a scheduled round); its
                                                   evidence still reaches last_reasons and the
                                                   language plan
    started > pending_window after last_counted_at the pending streak has lapsed: this round
                                                   starts a new one at 1 (a failure on Monday and
                                                   one on Tuesday are not consecutive, whatever
                                                   frozen rounds stood between them)
    otherwise                                      failed: failed += 1, clean = 0;
                                                   clean:  clean += 1, failed = 0

The rules, and why, are docs/judge.md's (Failed, clean, frozen).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from core.policy import Policy
from judge.suspension.round import ProviderRound, RoundClass
from judge.suspension.state import ProviderState


@dataclass(frozen=True, slots=True)
class Counted:
    """The provider after the round, and what the time rules did to it."""

    state: ProviderState
    set_aside: timedelta | None = None   # too close: the time since the last counted round
    lapsed: timedelta | None = None      # a pending streak restarted: how old it was (None: unknown age)
    lapsed_streak: int = 0               # the length of the streak that lapsed (0: none did)
    ended_streak: int = 0                # a frozen round in which its failing contracts passed ended a
                                         # pending failed streak this long (0: none ended)


def count(ps: ProviderState, pr: ProviderRound, started_at: datetime, policy: Policy) -> Counted:
    """Move the streaks of one provider by its round `pr`, which started at `started_at`."""
    last = ps.last_counted_at
    since = None if last is None else started_at - last
    if pr.klass is RoundClass.FROZEN:
        return _frozen(ps, pr, since, policy)
    if since is not None and since < policy.min_round_gap:
        return Counted(ps, set_aside=since)
    lapsed = since is None or since > policy.pending_window
    if pr.klass is RoundClass.FAILED:
        pending = ps.failed_streak if not lapsed else 0
        failing = set(pr.failed()) | (set(ps.failing_contracts) if pending else set())
        moved = replace(ps, failed_streak=pending + 1, clean_streak=0, last_counted_at=started_at,
                        failing_contracts=tuple(sorted(failing)))
        dropped = ps.failed_streak if lapsed else 0
    else:
        pending = ps.clean_streak if not lapsed else 0
        moved = replace(ps, clean_streak=pending + 1, failed_streak=0, last_counted_at=started_at,
                        failing_contracts=())
        dropped = ps.clean_streak if lapsed else 0
    if dropped:
        return Counted(moved, lapsed=since, lapsed_streak=dropped)
    return Counted(moved)


def _frozen(ps: ProviderState, pr: ProviderRound, since: timedelta | None, policy: Policy) -> Counted:
    """Nothing moves, unless every contract the pending failed streak failed on passed."""
    pending = since is not None and policy.min_round_gap <= since <= policy.pending_window
    if not (ps.failed_streak and pending and ps.failing_contracts) or not set(ps.failing_contracts) <= pr.passed():
        return Counted(ps)
    return Counted(replace(ps, failed_streak=0, failing_contracts=()), ended_streak=ps.failed_streak)
