"""Maintenance windows: a failed round inside one is held (frozen, not counted, out of the evidence and
the guard); a clean round inside one counts; outside one, a host is judged as always. `now` is the
rounds' own time (T0 is a Sunday, 22:00 UTC), never today's date."""

from __future__ import annotations

from datetime import time, timedelta

import pytest
from rules_factories import HALF_HOUR, MODEL, PROVIDERS, T0, Timeline, actions

from judge.suspension.decisions import Action, Rule
from judge.suspension.evidence import cards_by_endpoint
from judge.suspension.maintenance import MAX_WEEKLY, MaintenanceWindow, busiest_week

BAD = PROVIDERS[2]   # cirrus/fp8
HOST = BAD.split("/")[0]


def one_off(start_min: int, end_min: int, provider: str = BAD) -> MaintenanceWindow:
    return MaintenanceWindow(provider, "announced: status page incident 88", "alice",
                             start=T0 + timedelta(minutes=start_min), end=T0 + timedelta(minutes=end_min))


def weekly(every: str, opens: time, closes: time, provider: str = HOST) -> MaintenanceWindow:
    return MaintenanceWindow(provider, "weekly maintenance", "bob", every=every, daily_start=opens, daily_end=closes)


def test_failed_rounds_inside_the_window_move_no_streak_and_say_why() -> None:
    t = Timeline(maintenance=(one_off(0, 75),))        # rounds at 22:30 and 23:00 inside, 23:30 outside
    held = t.rounds(2, {BAD: "fail"})
    assert not actions(held, Action.SUSPEND)
    [first, second] = actions(held, Action.NOT_COUNTED)
    assert (first.provider, first.rule) == (BAD, Rule.MAINTENANCE) and second.rule is Rule.MAINTENANCE
    assert "failed during announced maintenance (2026-11-29T22:00:00Z to 2026-11-29T23:15:00Z" in first.reason
    assert [e.outcome for e in first.evidence] == ["fail"]
    assert t.state.provider(MODEL, BAD).failed_streak == 0
    assert all(c.failures == 0 for c in cards_by_endpoint(t.state, MODEL)[BAD])   # out of the evidence window


def test_outside_the_window_the_same_failures_suspend_as_always() -> None:
    t = Timeline(maintenance=(one_off(0, 75),))
    t.rounds(2, {BAD: "fail"})
    assert not actions(t.round({BAD: "fail"}), Action.SUSPEND)    # 23:30: counted, streak 1
    [suspended] = actions(t.round({BAD: "fail"}), Action.SUSPEND)  # 00:00: streak 2
    assert suspended.provider == BAD
    plain = Timeline()
    assert actions(plain.rounds(2, {BAD: "fail"}), Action.SUSPEND)   # without the window: at once


def test_a_clean_round_inside_the_window_counts() -> None:
    with_window, without = Timeline(maintenance=(one_off(0, 75),)), Timeline()
    for t in (with_window, without):
        t.round()
    assert with_window.state == without.state and with_window.state.provider(MODEL, BAD).clean_streak == 1


def test_a_window_of_another_host_or_model_holds_nothing() -> None:
    others = (one_off(0, 75, provider=PROVIDERS[0]),
              MaintenanceWindow(BAD, "r", "a", model="other/model", start=T0, end=T0 + HALF_HOUR * 3),
              one_off(0, 75, provider=HOST + "x"))
    t = Timeline(maintenance=others)
    assert actions(t.rounds(2, {BAD: "fail"}), Action.SUSPEND)


def test_a_held_host_does_not_count_in_the_model_wide_guard() -> None:
    failing = PROVIDERS[:3]   # 3 of 5 fail: the guard alone would count them for nobody
    t = Timeline(maintenance=(one_off(0, 75, provider=failing[0]),))
    decisions = t.rounds(2, {p: "fail" for p in failing})
    assert not actions(decisions, Action.MODEL_WIDE_GUARD)   # 2 of 4 failing is no longer "most"
    assert {d.provider for d in actions(decisions, Action.SUSPEND)} == set(failing[1:])


@pytest.mark.parametrize(("at_min", "open_"), [
    (90, True),            # Sunday 23:30
    (150, True),           # Monday 00:30, past midnight
    (180, False),          # Monday 01:00: the end is not in the window
    (60, True),            # Sunday 23:00: the start is
    (59, False),
    (150 - 24 * 60, False),    # Sunday 00:30: yesterday was Saturday
    (90 + 7 * 24 * 60, True),  # a week later
    (90 + 24 * 60, False),     # Monday 23:30
])
def test_a_weekly_window_past_midnight(at_min: int, open_: bool) -> None:
    window = weekly("sunday", time(23, 0), time(1, 0))
    assert window.open_at(T0 + timedelta(minutes=at_min)) is open_
    assert window.when == "every sunday 23:00-01:00 UTC"


def test_a_daily_window_and_what_a_bare_tag_covers() -> None:
    window = weekly("day", time(2, 0), time(3, 0))
    assert window.open_at(T0 + timedelta(hours=4, minutes=30)) and not window.open_at(T0 + timedelta(hours=5))
    assert window.covers(MODEL, BAD) and window.covers(MODEL, HOST.upper() + "/turbo") and window.covers(MODEL, HOST)
    assert not window.covers(MODEL, HOST + "x/fp8") and not one_off(0, 1).covers(MODEL, HOST + "/turbo")


@pytest.mark.parametrize(("windows", "hours"), [
    ((weekly("day", time(0, 0), time(12, 0)), weekly("day", time(12, 0), time(0, 0))), 168),   # around the clock
    ((one_off(0, 72 * 60),), 72),                                               # the longest one-off fits alone
    ((weekly("day", time(1, 0), time(11, 0)), weekly("tuesday", time(1, 0), time(4, 0))), 73),
    ((one_off(0, 72 * 60), one_off(72 * 60, 144 * 60)), 144),                   # back to back: 6 days in a row
    ((one_off(0, 60), one_off(8 * 24 * 60, 8 * 24 * 60 + 60)), 1),              # a week apart: 1 h in any 7 days
    ((weekly("day", time(1, 0), time(11, 0)), weekly("day", time(1, 0), time(11, 0), provider=BAD)), 140),
    ((weekly("day", time(1, 0), time(11, 0), provider=BAD),
      weekly("day", time(1, 0), time(11, 0), provider=HOST + "/turbo")), 70),    # two endpoints, 70 h each
    ((weekly("day", time(1, 0), time(11, 0)),
      MaintenanceWindow(BAD, "r", "a", model="other/model", start=T0, end=T0 + timedelta(hours=3))), 73),
], ids=["two-daily-12h", "one-off-72h", "daily-10h-and-weekly-3h", "two-one-offs-back-to-back",
        "two-one-offs-a-week-apart", "bare-host-and-its-endpoint", "two-endpoints-of-a-host", "one-model-more"])
def test_the_busiest_week_of_an_endpoint_adds_up_every_window_covering_it(
        windows: tuple[MaintenanceWindow, ...], hours: int) -> None:
    covered, _, mine = busiest_week(windows)
    assert covered == timedelta(hours=hours)
    assert (covered > MAX_WEEKLY) is (hours > 72) and len(mine) <= len(windows)
