"""The ladder: 1, 3, 7, 7 days, and a fresh start after 14 quiet days."""

from __future__ import annotations

from datetime import timedelta

from rules_factories import DAY, HALF_HOUR, MODEL, PROVIDERS, Timeline, actions

from core.policy import Policy
from judge.suspension.decisions import Action

BAD = PROVIDERS[0]
POLICY = Policy()


def _suspend_again(t: Timeline) -> int:
    """Two failed rounds; returns the suspension's length in days."""
    decisions = t.rounds(2, {BAD: "fail"})
    [d] = actions(decisions, Action.SUSPEND)
    assert d.until is not None
    return round((d.until - t.now) / DAY)


def _wait_until_expired(t: Timeline) -> None:
    s = t.suspension(BAD)
    assert s is not None
    t.round(after=s.until - t.now)  # the round at the exact end: expired, and a clean round


def test_the_ladder_goes_1_3_7_7_days() -> None:
    t = Timeline()
    lengths = []
    for _ in range(4):
        lengths.append(_suspend_again(t))
        _wait_until_expired(t)
    assert lengths == [1, 3, 7, 7] == [*POLICY.ladder_days, POLICY.ladder_days[-1]]


def test_a_host_still_failing_at_expiry_climbs_the_ladder_at_once() -> None:
    t = Timeline()
    t.rounds(2, {BAD: "fail"})
    rounds_in_a_day = DAY // HALF_HOUR
    assert not actions(t.rounds(rounds_in_a_day - 1, {BAD: "fail"}), Action.SUSPEND)  # still probed
    decisions = t.round({BAD: "fail"})
    assert [d.action for d in decisions] == [Action.EXPIRED, Action.SUSPEND]
    assert t.suspension(BAD).rung == 2  # type: ignore[union-attr]


def test_the_ladder_starts_again_after_14_quiet_days() -> None:
    t = Timeline()
    _suspend_again(t)
    _wait_until_expired(t)
    _suspend_again(t)
    _wait_until_expired(t)
    started = t.state.provider(MODEL, BAD).ladder.last_suspension_started
    assert started is not None
    t.round(after=started + timedelta(days=POLICY.fade_days) - t.now)
    assert t.state.provider(MODEL, BAD).ladder.rung == 0
    assert _suspend_again(t) == POLICY.ladder_days[0]


def test_the_ladder_does_not_fade_one_day_early() -> None:
    t = Timeline()
    _suspend_again(t)
    _wait_until_expired(t)
    started = t.state.provider(MODEL, BAD).ladder.last_suspension_started
    assert started is not None
    t.round(after=started + timedelta(days=POLICY.fade_days - 1) - t.now)
    assert _suspend_again(t) == POLICY.ladder_days[1]
