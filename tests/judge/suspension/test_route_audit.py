"""The route audit: replies a backend's records say an excluded endpoint served are a leak, named per endpoint."""

from __future__ import annotations

from datetime import timedelta

from rules_factories import HALF_HOUR, MODEL, T0, served_record

from core.layers import BUILTIN, INCIDENT, SUSPENSION, Exclusion
from judge.suspension.decisions import Action, Rule
from judge.suspension.route_audit import (
    GRACE,
    LEAK_ALARM,
    alarms,
    endpoints_named,
    newest,
    route_audit,
    served_names,
)

NAMES = {MODEL: {"aurora/fp8": "Aurora", "borealis/bf16": "Borealis", "cirrus/fp8": "Cirrus"}}
END = T0 + 4 * HALF_HOUR


def suspended(tag: str, since=T0, until=T0 + timedelta(days=1), *, observed: bool = False) -> Exclusion:
    return Exclusion(MODEL, tag, SUSPENSION, "failed twice", since=since, expires=until, observed=observed)


def test_replies_served_by_an_endpoint_excluded_through_the_window_are_a_leak_of_its_share():
    record = served_record(END, {"Aurora": 12, "Borealis": 300, None: 88})

    (leak,) = route_audit([record], [suspended("aurora/fp8")], NAMES)

    assert (leak.provider, leak.leaked, leak.sampled, leak.layer) == ("aurora/fp8", 12, 400, SUSPENSION)
    assert leak.rate == 0.03 > LEAK_ALARM
    (decision,) = alarms([leak])
    assert (decision.action, decision.rule, decision.provider) == (Action.ROUTE_LEAK, Rule.ROUTE_AUDIT, "aurora/fp8")
    assert "not applying provider.ignore" in decision.reason and "12 of 400" in decision.reason


def test_an_exclusion_younger_than_the_grace_an_observed_one_or_one_ending_inside_the_window_is_no_leak():
    record = served_record(END, {"Aurora": 12, "Borealis": 12, "Cirrus": 12})
    start = END - HALF_HOUR
    entries = [suspended("aurora/fp8", since=start - GRACE + timedelta(seconds=1)),   # the backend may not know yet
               suspended("borealis/bf16", observed=True),                             # not in provider.ignore
               suspended("cirrus/fp8", until=END - timedelta(minutes=1))]              # lifted before the window ended

    assert route_audit([record], entries, NAMES) == ()
    assert len(route_audit([record], [suspended("aurora/fp8", since=start - GRACE)], NAMES)) == 1


def test_peoples_layers_count_and_a_builtin_without_since_is_in_force():
    record = served_record(END, {"Aurora": 5, "Borealis": 6, "Cirrus": 400})
    entries = [Exclusion(MODEL, "aurora/fp8", BUILTIN, "reviewed"),
               Exclusion(MODEL, "borealis/bf16", INCIDENT, "outage", since=T0 - timedelta(days=2))]

    leaks = route_audit([record], entries, NAMES)

    assert [(k.provider, k.layer, k.leaked) for k in leaks] == [("aurora/fp8", BUILTIN, 5),
                                                                ("borealis/bf16", INCIDENT, 6)]
    assert [a.provider for a in alarms(leaks)] == ["aurora/fp8", "borealis/bf16"]   # 1.2 % and 1.4 % of 411


def test_a_provider_of_several_endpoints_a_cell_marked_ambiguous_and_the_remainder_are_never_counted():
    names = {MODEL: {"aurora/fp8": "Aurora", "aurora/bf16": "Aurora", "borealis/bf16": "Borealis"}}
    record = served_record(END, {"Aurora": 40, "Borealis": 40, None: 40}, ambiguous=frozenset({"Borealis"}))
    entries = [suspended("aurora/fp8"), suspended("borealis/bf16")]

    assert route_audit([record], entries, names) == ()


def test_an_excluded_endpoint_the_probes_never_heard_from_is_matched_by_its_provider_slug():
    record = served_record(END, {"Google AI Studio": 30, "Borealis": 70})
    entries = [Exclusion(MODEL, "google-ai-studio", BUILTIN, "reviewed")]

    (leak,) = route_audit([record], entries, NAMES)

    assert (leak.provider, leak.leaked) == ("google-ai-studio", 30)
    assert endpoints_named({"deepinfra/fp8": None, "x/y": "DeepInfra"}, "deepinfra") == ("deepinfra/fp8", "x/y")


def test_a_round_audits_each_exporters_newest_fresh_record_only():
    old, new = served_record(END - HALF_HOUR, {"Aurora": 1}), served_record(END, {"Aurora": 2})
    other = served_record(END - 3 * HALF_HOUR, {"Aurora": 3}, exporter="chat-us-1")   # stale: not alarmed again

    assert newest([old, new, other], END + timedelta(minutes=5)) == [new]
    assert newest([old, new], END - timedelta(minutes=1)) == [old]   # a record ending after the round is not read


def test_the_names_the_probes_replies_gave_are_the_most_frequent_per_endpoint():
    rows = [(MODEL, "aurora/fp8", "Aurora"), (MODEL, "aurora/fp8", "Aurora"), (MODEL, "aurora/fp8", "Elsewhere"),
            (MODEL, "borealis/bf16", None)]

    assert served_names(rows) == {MODEL: {"aurora/fp8": "Aurora", "borealis/bf16": None}}
