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
