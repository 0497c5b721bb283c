"""User reports: two against one endpoint within a day ask the next round to confirm it, never more."""

from __future__ import annotations

from datetime import timedelta

from rules_factories import HALF_HOUR, MODEL, T0, served_record

from judge.suspension.reports import MIN_REPORTS, REPORT_SPAN, to_confirm

NAMES = {MODEL: {"aurora/fp8": "Aurora", "borealis/bf16": "Borealis", "cirrus/fp8": "Cirrus"}}
END = T0 + 4 * HALF_HOUR


def test_two_reports_against_one_endpoint_within_a_day_schedule_its_confirmation_one_does_not():
    now = END + timedelta(minutes=2)
    records = [served_record(END, {"Aurora": 9}, reports={"Aurora": 1, "Borealis": 1}),
               served_record(END - REPORT_SPAN + HALF_HOUR, {"Aurora": 9}, reports={"Aurora": 1}),
               served_record(END - REPORT_SPAN, {"Borealis": 9}, reports={"Borealis": 1}),   # a day before: too old
               served_record(END, {"Cirrus": 9}, reports={"Cirrus": MIN_REPORTS}, exporter="chat-us-1")]

    assert to_confirm(records, NAMES, now=now) == {(MODEL, "aurora/fp8"): 2, (MODEL, "cirrus/fp8"): MIN_REPORTS}


def test_a_report_against_a_provider_of_several_endpoints_confirms_each_of_them():
    names = {MODEL: {"aurora/fp8": "Aurora", "aurora/bf16": "Aurora"}}
    records = [served_record(END, {}, reports={"Aurora": 2})]

    assert set(to_confirm(records, names, now=END)) == {(MODEL, "aurora/bf16"), (MODEL, "aurora/fp8")}


def test_the_confirmation_is_asked_by_the_report_that_makes_two_not_by_every_round_after_it():
    records = [served_record(END, {"Aurora": 9}, reports={"Aurora": 1}),
               served_record(END + 4 * HALF_HOUR, {"Aurora": 9}, reports={"Aurora": 1})]

    asked = [n for n in range(12) if to_confirm(records, NAMES, now=END + n * HALF_HOUR + timedelta(minutes=2))]

    assert asked == [4, 5]   # the rounds of the hour after the second report's window, not the day after it


def test_two_reports_make_the_judge_confirm_every_contract_of_the_endpoint_and_fail_nothing():
    from rules_factories import PROVIDERS, report

    from core.policy import Policy
    from judge.suspension.decisions import Action, Rule
    from judge.suspension.rules import apply_round
    from judge.suspension.state import JudgeState

    now = END + timedelta(minutes=2)
    records = [served_record(END, {"Aurora": 9}, reports={"Aurora": 2})]

    state, decisions = apply_round(JudgeState(), report(at=now), Policy(), now=now, production=records)

    (asked,) = [d for d in decisions if d.action == Action.CONFIRM]
    assert (asked.provider, asked.rule) == (PROVIDERS[0], Rule.USER_REPORTS) and "2 users' reports" in asked.reason
    assert state.provider(MODEL, PROVIDERS[0]).to_confirm == ("language", "latency", "refusal", "structured")
    assert not state.provider(MODEL, PROVIDERS[0]).failed_streak
    assert state.confirm_plan() == {MODEL: {PROVIDERS[0]: ("language", "latency", "refusal", "structured")}}
