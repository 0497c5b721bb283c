"""The escalating suspension ladder (pure; docs/judge.md). A fade makes no decision: it changes nothing
for routing, it only shortens the next suspension.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from core.policy import Mode, Policy
from judge.suspension.state import Ladder, Suspension


def fade(ladder: Ladder, now: datetime, policy: Policy) -> Ladder:
    """The ladder at `now`: reset when fade_days have passed since the last suspension began."""
    last = ladder.last_suspension_started
    if last is not None and now - last >= timedelta(days=policy.fade_days):
        return Ladder()
    return ladder


def next_suspension(ladder: Ladder, now: datetime, policy: Policy, *, mode: Mode, reason: str,
                    contracts: tuple[str, ...] = ()) -> tuple[Suspension, Ladder]:
    """The suspension that starts at `now` and the ladder after it (`contracts`: what failed in the
    round that completed the streak)."""
    rung = fade(ladder, now, policy).rung + 1
    until = now + timedelta(days=policy.ladder_duration_days(rung))
    suspension = Suspension(since=now, until=until, rung=rung, mode=mode, reason=reason, contracts=contracts)
    return suspension, Ladder(rung, now)
