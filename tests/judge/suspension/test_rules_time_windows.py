"""The time rules of a streak: a pending round lapses after the pending window; a round sooner
than the minimum gap after the last counted one is frozen for the streaks (evidence kept)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from rules_factories import HALF_HOUR, MODEL, PROVIDERS, Timeline, actions

from core.policy import Policy
from judge.suspension.decisions import WHOLE_ROUND, Action, Rule

BAD = PROVIDERS[0]
POLICY = Policy()
WINDOW = POLICY.pending_window
GAP = POLICY.min_round_gap
SECOND = timedelta(seconds=1)
FIVE_MINUTES = timedelta(minutes=5)


def _suspended() -> Timeline:
    t = Timeline()
    t.rounds(2, {BAD: "fail"})
    assert t.suspension(BAD) is not None
    return t


def test_the_defaults_are_two_hours_and_twenty_minutes() -> None:
    assert (WINDOW, GAP) == (timedelta(hours=2), timedelta(minutes=20))


# -- the pending window ------------------------------------------------------------------------

def test_failures_25_hours_apart_with_frozen_rounds_between_do_not_suspend() -> None:
    t = Timeline()
    t.round({BAD: "fail"})
    first = t.now
    t.rounds(49, {BAD: "transport_error"})  # a day of transport errors, every half hour
    decisions = t.round({BAD: "fail"})
    assert t.now - first == timedelta(hours=25)
    assert t.suspension(BAD) is None and not actions(decisions, Action.SUSPEND)
    assert t.state.provider(MODEL, BAD).failed_streak == 1
    [restarted] = actions(decisions, Action.STREAK_RESTARTED)
    assert (restarted.provider, restarted.rule) == (BAD, Rule.PENDING_WINDOW)
    assert "25.0 h old" in restarted.reason and "pending_failure_hours" in restarted.reason


def test_the_failure_that_started_a_new_streak_is_pending_for_the_next_round() -> None:
    t = Timeline()
    t.round({BAD: "fail"})
    t.round({BAD: "fail"}, after=timedelta(hours=25))
    assert actions(t.round({BAD: "fail"}), Action.SUSPEND)


def test_a_failure_pending_exactly_the_window_still_suspends() -> None:
    t = Timeline()
    t.round({BAD: "fail"})
    t.rounds(3, {BAD: "transport_error"})
    assert actions(t.round({BAD: "fail"}, after=WINDOW - 3 * HALF_HOUR), Action.SUSPEND)


def test_a_failure_pending_one_second_longer_than_the_window_has_lapsed() -> None:
    t = Timeline()
    t.round({BAD: "fail"})
    t.rounds(3, {BAD: "transport_error"})
    decisions = t.round({BAD: "fail"}, after=WINDOW - 3 * HALF_HOUR + SECOND)
    assert not actions(decisions, Action.SUSPEND) and actions(decisions, Action.STREAK_RESTARTED)
    assert t.state.provider(MODEL, BAD).failed_streak == 1


def test_the_window_runs_from_the_last_failed_round_of_a_longer_streak() -> None:
    t = Timeline(policy=Policy(failed_rounds_to_suspend=3))
    t.round({BAD: "fail"})
    t.round({BAD: "fail"}, after=WINDOW)
    assert actions(t.round({BAD: "fail"}, after=WINDOW), Action.SUSPEND)


def test_the_window_is_configurable() -> None:
    t = Timeline(policy=Policy(pending_failure_hours=30))
    t.round({BAD: "fail"})
    t.rounds(49, {BAD: "transport_error"})
    assert actions(t.round({BAD: "fail"}), Action.SUSPEND)


# -- the minimum gap between counted rounds ----------------------------------------------------

def test_a_manual_round_five_minutes_after_a_scheduled_one_does_not_count() -> None:
    t = Timeline()
    t.round({BAD: "fail"})
    decisions = t.round({BAD: "fail"}, after=FIVE_MINUTES)
    assert t.suspension(BAD) is None and t.state.provider(MODEL, BAD).failed_streak == 1
    [skipped] = actions(decisions, Action.NOT_COUNTED)
    assert (skipped.model, skipped.provider, skipped.rule) == (MODEL, WHOLE_ROUND, Rule.MIN_ROUND_GAP)
    assert "5 min" in skipped.reason and f"{len(PROVIDERS)} endpoint(s)" in skipped.reason


def test_the_next_scheduled_round_counts_from_the_last_counted_round_not_the_manual_one() -> None:
    t = Timeline()
    t.round({BAD: "fail"})
    t.round({BAD: "fail"}, after=FIVE_MINUTES)
    assert actions(t.round({BAD: "fail"}, after=HALF_HOUR - FIVE_MINUTES), Action.SUSPEND)


def test_re_runs_every_fifteen_minutes_count_every_second_one() -> None:
    t = Timeline()
    t.round({BAD: "fail"})
    assert actions(t.round({BAD: "fail"}, after=HALF_HOUR / 2), Action.NOT_COUNTED)
    assert actions(t.round({BAD: "fail"}, after=HALF_HOUR / 2), Action.SUSPEND)


def test_a_round_exactly_the_minimum_gap_later_counts() -> None:
    t = Timeline()
    t.round({BAD: "fail"})
    assert actions(t.round({BAD: "fail"}, after=GAP), Action.SUSPEND)


def test_a_round_one_second_short_of_the_minimum_gap_does_not_count() -> None:
    t = Timeline()
    t.round({BAD: "fail"})
    decisions = t.round({BAD: "fail"}, after=GAP - SECOND)
    assert not actions(decisions, Action.SUSPEND) and actions(decisions, Action.NOT_COUNTED)


def test_a_too_close_round_keeps_its_evidence_and_its_language() -> None:
    t = Timeline()
    t.round({BAD: "fail"}, languages={BAD: "pt"})
    t.round({BAD: {"language": "fail"}}, after=FIVE_MINUTES, languages={BAD: "ko"})
    ps = t.state.provider(MODEL, BAD)
    assert ps.last_reasons == ("language: fail: language fail",)
    assert ps.next_language == "ko"  # the anomaly is confirmed in the same language next round
    assert ps.failed_streak == 1


def test_a_too_close_clean_round_does_not_reset_a_pending_failure() -> None:
    t = Timeline()
    t.round({BAD: "fail"})
    t.round(after=FIVE_MINUTES)
    assert actions(t.round({BAD: "fail"}, after=HALF_HOUR - FIVE_MINUTES), Action.SUSPEND)


def test_a_frozen_round_is_not_a_counted_round_for_the_gap() -> None:
    t = Timeline()
    t.round({BAD: "fail"})
    t.round({BAD: "transport_error"}, after=timedelta(minutes=15))
    assert actions(t.round({BAD: "fail"}, after=timedelta(minutes=15)), Action.SUSPEND)


def test_a_gap_of_zero_counts_every_round() -> None:
    t = Timeline(policy=Policy(min_round_gap_minutes=0))
    t.round({BAD: "fail"})
    assert actions(t.round({BAD: "fail"}, after=SECOND), Action.SUSPEND)


# -- the same rules for the clean streak that restores early -----------------------------------

def test_a_manual_re_run_does_not_restore_a_host() -> None:
    t = _suspended()
    t.round()
    decisions = t.round(after=FIVE_MINUTES)
    assert not actions(decisions, Action.RESTORE) and t.suspension(BAD) is not None
    assert actions(t.round(after=HALF_HOUR - FIVE_MINUTES), Action.RESTORE)


def test_clean_rounds_25_hours_apart_with_frozen_rounds_between_do_not_restore() -> None:
    t = Timeline(policy=Policy(ladder_days=(3,)))
    t.rounds(2, {BAD: "fail"})
    t.round()
    t.rounds(49, {BAD: "transport_error"})
    decisions = t.round()
    assert not actions(decisions, Action.RESTORE) and t.suspension(BAD) is not None
    [restarted] = actions(decisions, Action.STREAK_RESTARTED)
    assert restarted.provider == BAD and "clean" in restarted.reason
    assert actions(t.round(), Action.RESTORE)


@pytest.mark.parametrize("extra, restored", [(timedelta(0), True), (SECOND, False)], ids=["at-the-window", "past-it"])
def test_a_clean_round_pending_exactly_the_window_still_restores(extra: timedelta, restored: bool) -> None:
    t = _suspended()
    t.round()
    t.rounds(3, {BAD: "transport_error"})
    decisions = t.round(after=WINDOW - 3 * HALF_HOUR + extra)
    assert bool(actions(decisions, Action.RESTORE)) is restored


def test_a_healthy_hosts_lapsed_clean_streak_is_not_announced() -> None:
    t = Timeline()
    t.round()
    assert t.round(after=timedelta(hours=25)) == []


# -- the policy refuses windows that could never work ------------------------------------------

@pytest.mark.parametrize("kw", [
    {"pending_failure_hours": 0}, {"min_round_gap_minutes": -1},
    {"pending_failure_hours": 0.25, "min_round_gap_minutes": 15},
], ids=["no-window", "negative-gap", "gap-as-long-as-the-window"])
def test_the_policy_refuses_time_rules_that_could_never_extend_a_streak(kw: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        Policy(**kw)
