"""The state file read through its declaration: the dotted key of a bad value, additive keys skipped."""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from typing import Any

import pytest

from core.field_rules import written
from judge.suspension.state import StateError, read_state

MODEL, HOST = "m/x", "aurora/fp8"
PROVIDER: dict[str, Any] = {
    "failed_streak": 1, "clean_streak": 0,
    "suspension": {"since": "2026-11-29T22:30:00Z", "until": "2026-11-30T22:30:00Z", "rung": 1, "mode": "observe",
                   "reason": "language: fail"},
    "ladder": {"rung": 1, "last_suspension_started": "2026-11-29T22:30:00Z"},
    "last_reasons": ["language: fail"], "next_language": "es", "last_counted_at": "2026-11-29T22:30:00Z",
    "window": {"language": "p.f"},
}
DOC: dict[str, Any] = {"schema_version": 1, "mode": "observe", "applied_rounds": ["r1"],
                       "last_round": {"round_id": "r1", "started_at": "2026-11-29T22:30:00Z"},
                       "models": {MODEL: {HOST: PROVIDER}}}


def edited(**provider: Any) -> dict[str, Any]:
    doc = copy.deepcopy(DOC)
    doc["models"][MODEL][HOST].update(provider)
    return doc


def test_a_state_reads_back_as_it_was_written() -> None:
    assert written(read_state(DOC, "state.json")) == DOC


@pytest.mark.parametrize(("provider", "named"), [
    ({"failed_streak": -1}, "models.m/x.aurora/fp8.failed_streak: expected a whole number >= 0, got -1"),
    ({"clean_streak": True}, "models.m/x.aurora/fp8.clean_streak: expected a whole number, got True"),
    ({"suspension": {**PROVIDER["suspension"], "until": "tomorrow"}},
     "models.m/x.aurora/fp8.suspension.until: expected an ISO 8601 time like 2026-11-29T22:30:00Z, got 'tomorrow'"),
    ({"suspension": {**PROVIDER["suspension"], "mode": "panic"}},
     "models.m/x.aurora/fp8.suspension.mode: expected one of observe, enforce, got 'panic'"),
    ({"window": {"language": "pz"}}, "models.m/x.aurora/fp8.window: unknown attempt code in 'pz'"),
    ({"failing_contracts": "tools"}, "models.m/x.aurora/fp8.failing_contracts: expected a list, got 'tools'"),
], ids=["negative-streak", "boolean-streak", "until-not-a-time", "unknown-mode", "unknown-window-code",
        "failing-contracts-not-a-list"])
def test_a_bad_value_is_refused_naming_the_file_and_its_dotted_key(provider: dict[str, Any], named: str) -> None:
    with pytest.raises(StateError) as refused:
        read_state(edited(**provider), "state.json")
    assert str(refused.value).startswith(f"state.json: the state file is not in the expected shape ({named}")
    assert "Nothing was written" in str(refused.value)


def test_the_failing_contracts_of_a_pending_streak_read_back_as_written() -> None:
    doc = edited(failing_contracts=["language", "tools"])
    state = read_state(doc, "state.json")
    assert state.provider(MODEL, HOST).failing_contracts == ("language", "tools")
    assert written(state) == doc


def test_a_state_from_before_the_failing_contracts_reads_with_none() -> None:
    # DOC has a pending failed streak and no failing_contracts: no frozen round can end it, as before.
    ps = read_state(DOC, "state.json").provider(MODEL, HOST)
    assert (ps.failed_streak, ps.failing_contracts) == (1, ())


def test_failing_contracts_are_written_only_while_a_failed_streak_is_pending() -> None:
    state = read_state(edited(failed_streak=0, failing_contracts=["tools"]), "state.json")
    assert state.provider(MODEL, HOST).failing_contracts == ()
    assert "failing_contracts" not in written(state)["models"][MODEL][HOST]


def test_a_key_this_reader_does_not_know_is_skipped_as_an_additive_key_of_a_newer_writer() -> None:
    doc = edited(future_counter=3)
    doc["future_section"] = {"x": 1}
    assert read_state(doc, "state.json") == read_state(DOC, "state.json")


def test_a_time_without_a_zone_is_utc_as_everywhere_else() -> None:
    state = read_state(edited(last_counted_at="2026-11-29T22:30:00"), "state.json")
    assert state.models[MODEL][HOST].last_counted_at == datetime(2026, 11, 29, 22, 30, tzinfo=UTC)
