"""Streaks: two failed rounds suspend; frozen rounds neither break nor extend; clean resets."""

from __future__ import annotations

from rules_factories import DAY, MODEL, PROVIDERS, Timeline, actions, case

from core.policy import Policy
from judge.suspension.decisions import Action, Rule

BAD = PROVIDERS[0]


def test_two_failed_rounds_in_a_row_suspend_for_one_day() -> None:
    t = Timeline()
    assert t.round({BAD: "fail"}) == []
    decisions = t.round({BAD: "fail"})
    [suspend] = actions(decisions, Action.SUSPEND)
    assert (suspend.provider, suspend.rule, suspend.rung) == (BAD, Rule.FAILED_STREAK, 1)
    assert suspend.until == t.now + DAY * Policy().ladder_days[0]
    assert [e.contract for e in suspend.evidence] == ["structured"]
    assert t.ignore() == [BAD]


def test_one_failed_round_alone_suspends_nobody() -> None:
    t = Timeline()
    t.round({BAD: "fail"})
    t.round()
    assert t.suspension(BAD) is None and t.ignore() == []


def test_frozen_rounds_between_failures_do_not_break_the_streak() -> None:
    t = Timeline()
    t.round({BAD: "fail"})
    t.round({BAD: "transport_error"})
    t.round({BAD: "inconclusive"})
    assert t.state.provider(MODEL, BAD).failed_streak == 1
    assert actions(t.round({BAD: "fail"}), Action.SUSPEND)


def test_frozen_rounds_do_not_extend_a_streak() -> None:
    t = Timeline()
    t.round({BAD: "fail"})
    t.rounds(5, {BAD: "transport_error"})
    assert t.state.provider(MODEL, BAD).failed_streak == 1
    assert t.suspension(BAD) is None


def test_a_clean_round_resets_the_failed_streak() -> None:
    t = Timeline()
    t.round({BAD: "fail"})
    t.round()
    t.round({BAD: "fail"})
    assert t.suspension(BAD) is None
    assert t.state.provider(MODEL, BAD).failed_streak == 1


def test_a_missing_contract_freezes_the_round() -> None:
    t = Timeline()
    t.round({BAD: "fail"})
    t.round({BAD: {"structured": "missing"}})
    assert t.state.provider(MODEL, BAD).failed_streak == 1
    assert t.state.provider(MODEL, BAD).clean_streak == 0


def test_not_applicable_counts_as_neither_pass_nor_fail() -> None:
    t = Timeline()
    t.round({BAD: "fail"})
    t.round({BAD: "not_applicable"})
    assert t.state.provider(MODEL, BAD).failed_streak == 0  # the other contracts passed: clean
    t.round({BAD: {c: "not_applicable" for c in ("latency", "refusal", "structured", "language")}})
    assert t.state.provider(MODEL, BAD).clean_streak == 1  # all n/a, no pass: frozen


def test_control_cases_judge_the_probe_not_the_host() -> None:
    t = Timeline()
    control = [case(BAD, "refusal", "fail", control=True)]
    t.rounds(3, extra_cases=control)
    assert t.suspension(BAD) is None
    assert t.state.provider(MODEL, BAD).clean_streak == 3


def test_an_incomplete_round_changes_nothing_but_is_recorded() -> None:
    t = Timeline()
    t.round({BAD: "fail"})
    before = t.state
    decisions = t.round({BAD: "fail"}, complete=False)
    assert [d.action for d in decisions] == [Action.INCOMPLETE_ROUND]
    assert t.state.models == before.models
    assert t.state.applied_rounds[-1] != before.applied_rounds[-1]


def test_a_weak_probe_is_reported() -> None:
    t = Timeline()
    weak = [{"model": MODEL, "contract": "refusal", "control": "ember/fp8", "reason": "control passed"}]
    [d] = actions(t.round(weak_probes=weak), Action.PROBE_WEAK)
    assert (d.provider, d.rule) == ("ember/fp8", Rule.WEAK_PROBE)


def test_last_reasons_keep_what_went_wrong() -> None:
    t = Timeline()
    t.round({BAD: "fail"})
    assert t.state.provider(MODEL, BAD).last_reasons == ("structured: fail: structured fail",)


def test_a_control_host_can_be_restored_on_its_other_contracts() -> None:
    # A positive-control host has no ordinary refusal case, only the control one: that must not
    # freeze it forever, or a suspension for another contract could never end early.
    t = Timeline()
    only_control = [case(BAD, "refusal", "pass", control=True)]
    t.rounds(2, {BAD: {"refusal": "missing", "structured": "fail"}}, extra_cases=only_control)
    assert t.suspension(BAD) is not None
    decisions = t.rounds(2, {BAD: {"refusal": "missing"}}, extra_cases=only_control)
    assert actions(decisions, Action.RESTORE) and t.suspension(BAD) is None
