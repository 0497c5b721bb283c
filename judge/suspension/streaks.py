"""Moving one provider's streaks by one classified round, under the two time rules (pure).

The seed's "two consecutive rounds" means two consecutive *half-hourly* rounds, so a round
moves a streak only when it is really the next one:

    frozen round                                   nothing moves
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

Both rules hold for the clean streak that restores early as well: a restore is less dangerous
than a suspension, but two clean rounds a day apart say nothing about the host *now*, and a
re-run five minutes later is the same evidence twice. Times are the rounds' `started_at`;
`last_counted_at` is only set by a round that moved a streak, so a run of re-runs cannot creep
forward. A streak without a time (a state file from before these rules) is not pending: the
next counted round starts it afresh, the safe direction (a false suspension is worse than a
missed one).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from core.policy import Policy
from judge.suspension.round import RoundClass
from judge.suspension.state import ProviderState


@dataclass(frozen=True, slots=True)
class Counted:
    """The provider after the round, and what the time rules did to it."""

    state: ProviderState
    set_aside: timedelta | None = None   # too close: the time since the last counted round
    lapsed: timedelta | None = None      # a pending streak restarted: how old it was (None: unknown age)
    lapsed_streak: int = 0               # the length of the streak that lapsed (0: none did)


def count(ps: ProviderState, klass: RoundClass, started_at: datetime, policy: Policy) -> Counted:
    """Move the streaks of one provider by one round of class `klass` that started at `started_at`."""
    if klass is RoundClass.FROZEN:
        return Counted(ps)
    last = ps.last_counted_at
    since = None if last is None else started_at - last
    if since is not None and since < policy.min_round_gap:
        return Counted(ps, set_aside=since)
    lapsed = since is None or since > policy.pending_window
    if klass is RoundClass.FAILED:
        pending = ps.failed_streak if not lapsed else 0
        moved = replace(ps, failed_streak=pending + 1, clean_streak=0, last_counted_at=started_at)
        dropped = ps.failed_streak if lapsed else 0
    else:
        pending = ps.clean_streak if not lapsed else 0
        moved = replace(ps, clean_streak=pending + 1, failed_streak=0, last_counted_at=started_at)
        dropped = ps.clean_streak if lapsed else 0
    if dropped:
        return Counted(moved, lapsed=since, lapsed_streak=dropped)
    return Counted(moved)
