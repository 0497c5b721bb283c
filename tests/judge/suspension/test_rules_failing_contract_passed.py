"""A frozen round in which every contract the pending failed streak failed on passed ends the
streak (judge/suspension/streaks.py); one where any of them did not pass stays frozen, so a
failing host still cannot escape its streak by erroring on the contract it fails."""

from __future__ import annotations

from datetime import timedelta

import pytest
from rules_factories import MODEL, PROVIDERS, Timeline, actions

from core.policy import OBSERVE, Policy
from judge.suspension.decisions import Action, Decision, Rule
from judge.suspension.rules import lift

BAD = PROVIDERS[0]
GAP = Policy().min_round_gap
WINDOW = Policy().pending_window
SECOND = timedelta(seconds=1)
FAIL_STRUCTURED = {BAD: {"structured": "fail"}}
# Frozen by a transport error on another contract, while the contract that failed passes.
PASSED_BUT_FROZEN = {BAD: {"structured": "pass", "language": "transport_error"}}


def suspending(decisions: list[Decision]) -> list[Decision]:
    return actions(decisions, Action.SUSPEND) + actions(decisions, Action.WOULD_SUSPEND)


@pytest.mark.parametrize("mode", ["enforce", OBSERVE])
def test_a_chance_failure_is_not_joined_to_the_next_across_rounds_where_that_contract_passed(mode: str) -> None:
    # The real week (issue 28): tools failed by chance, three rounds frozen by transport errors
    # elsewhere with tools passing, tools failed by chance again: a false suspension before this rule.
    t = Timeline(mode=mode)
    t.round(FAIL_STRUCTURED)
    frozen = t.rounds(3, PASSED_BUT_FROZEN)
    assert not suspending(t.round(FAIL_STRUCTURED))
    assert t.state.provider(MODEL, BAD).failed_streak == 1 and t.suspension(BAD) is None
    [ended] = actions(frozen, Action.STREAK_RESTARTED)  # the first frozen round ends it; the others find none
    assert (ended.provider, ended.rule) == (BAD, Rule.FAILING_CONTRACT_PASSED)
    assert ended.reason == ("frozen round (transport error on language), but structured, which the pending "
                            "failed streak (1 round(s)) failed on, passed: the streak ends")
    assert [(e.contract, e.outcome) for e in ended.evidence] == [("language", "transport_error"),
                                                                 ("structured", "pass")]


def test_the_ending_round_is_still_not_clean() -> None:
    t = Timeline()
    t.round(FAIL_STRUCTURED)
    counted_at = t.now
    t.round(PASSED_BUT_FROZEN)
    ps = t.state.provider(MODEL, BAD)
    assert (ps.failed_streak, ps.clean_streak, ps.failing_contracts) == (0, 0, ())
    assert ps.last_counted_at == counted_at  # no streak moved forward: the next round is measured as before


@pytest.mark.parametrize("not_passed", ["transport_error", "inconclusive", "missing"])
def test_the_failing_contract_erroring_in_between_keeps_the_round_frozen(not_passed: str) -> None:
    # The protection "transport errors freeze" exists for: the host errors on the contract it fails.
    t = Timeline()
    t.round({BAD: {"language": "fail"}})
    between = t.round({BAD: {"language": not_passed}})
    assert not actions(between, Action.STREAK_RESTARTED)
    assert t.state.provider(MODEL, BAD).failed_streak == 1
    assert actions(t.round({BAD: {"language": "fail"}}), Action.SUSPEND)


def test_one_of_two_failing_contracts_passing_keeps_the_round_frozen() -> None:
    t = Timeline()
    t.round({BAD: {"structured": "fail", "latency": "fail"}})
    assert t.state.provider(MODEL, BAD).failing_contracts == ("latency", "structured")
    between = t.round({BAD: {"structured": "pass", "latency": "transport_error"}})
    assert not actions(between, Action.STREAK_RESTARTED)
    assert actions(t.round(FAIL_STRUCTURED), Action.SUSPEND)


def test_the_failing_contracts_add_up_over_the_streak() -> None:
    t = Timeline(policy=Policy(failed_rounds_to_suspend=3))
    t.round(FAIL_STRUCTURED)
    t.round({BAD: {"latency": "fail"}})
    assert t.state.provider(MODEL, BAD).failing_contracts == ("latency", "structured")
    assert not actions(t.round({BAD: {"latency": "pass", "structured": "transport_error"}}), Action.STREAK_RESTARTED)
    assert t.state.provider(MODEL, BAD).failed_streak == 2
    assert actions(t.round(FAIL_STRUCTURED), Action.SUSPEND)


def test_every_failing_contract_passing_ends_a_longer_streak() -> None:
    t = Timeline(policy=Policy(failed_rounds_to_suspend=3))
    t.round(FAIL_STRUCTURED)
    t.round({BAD: {"latency": "fail"}})
    [ended] = actions(t.round({BAD: {"refusal": "inconclusive"}}), Action.STREAK_RESTARTED)
    assert ended.reason == ("frozen round (inconclusive on refusal), but latency, structured, all of which the "
                            "pending failed streak (2 round(s)) failed on, passed: the streak ends")
    assert t.state.provider(MODEL, BAD).failed_streak == 0
    assert not actions(t.round(FAIL_STRUCTURED), Action.SUSPEND)


def test_a_discounted_failure_is_not_one_the_streak_failed_on() -> None:
    # Structured fails on most endpoints (the model-wide guard: counted for nobody); the streak
    # failed on latency only, so latency passing ends it whatever structured does.
    t = Timeline()
    t.round({p: "fail" for p in PROVIDERS[:3]} | {BAD: {"structured": "fail", "latency": "fail"}})
    assert t.state.provider(MODEL, BAD).failing_contracts == ("latency",)
    assert actions(t.round({BAD: {"structured": "transport_error"}}), Action.STREAK_RESTARTED)
    assert t.state.provider(MODEL, BAD).failed_streak == 0
    t.round({BAD: {"latency": "fail"}})
    [ended] = actions(t.round({p: "fail" for p in PROVIDERS[:3]}), Action.STREAK_RESTARTED)  # frozen by the guard
    assert ended.reason.startswith("frozen round (model-wide failure on structured), but latency, which")


def test_a_rerun_sooner_than_the_minimum_gap_ends_nothing() -> None:
    t = Timeline()
    t.round(FAIL_STRUCTURED)
    assert not actions(t.round(PASSED_BUT_FROZEN, after=GAP - SECOND), Action.STREAK_RESTARTED)
    assert actions(t.round(FAIL_STRUCTURED, after=GAP), Action.SUSPEND)


def test_at_exactly_the_minimum_gap_it_ends_the_streak() -> None:
    t = Timeline()
    t.round(FAIL_STRUCTURED)
    assert actions(t.round(PASSED_BUT_FROZEN, after=GAP), Action.STREAK_RESTARTED)


def test_a_lapsed_streak_is_left_to_the_pending_window() -> None:
    t = Timeline()
    t.round(FAIL_STRUCTURED)
    assert not actions(t.round(PASSED_BUT_FROZEN, after=WINDOW + SECOND), Action.STREAK_RESTARTED)
    [restarted] = actions(t.round(FAIL_STRUCTURED), Action.STREAK_RESTARTED)
    assert restarted.rule is Rule.PENDING_WINDOW


def test_a_suspension_a_lift_and_a_clean_round_clear_the_failing_contracts() -> None:
    t = Timeline()
    t.rounds(2, FAIL_STRUCTURED)
    assert t.suspension(BAD) is not None
    assert t.state.provider(MODEL, BAD).failing_contracts == ()
    t.round({BAD: {"latency": "fail"}})
    assert t.state.provider(MODEL, BAD).failing_contracts == ("latency",)
    t.state, _ = lift(t.state, MODEL, BAD, now=t.now, reason="fixed")
    assert t.state.provider(MODEL, BAD).failing_contracts == ()
    t.round({BAD: {"latency": "fail"}})
    t.round()
    assert t.state.provider(MODEL, BAD).failing_contracts == ()
