"""state/canary-state.json: round trip, the language plan, bounded size, and the Policy mirror."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import msgspec
import pytest
from judge_cli_support import HALF_HOUR, MODEL, PROVIDERS, T0, iso
from rules_factories import Timeline, actions

from canary.state.judge_files import load_state, save_state
from core.config import ConfigFile, parse_config
from core.field_rules import written
from core.policy import Policy
from core.store import StoreError
from core.vocabulary import LANGUAGES
from judge.suspension.decisions import Action
from probes.round.settings import previous_limits, read_round_state


def test_the_configuration_defaults_are_the_policy_defaults() -> None:
    config = parse_config({})
    assert config.rules == Policy()
    DEFAULTS = msgspec.to_builtins(ConfigFile(), enc_hook=str)   # canary.yaml's defaults as plain data
    assert Policy().languages == LANGUAGES == tuple(DEFAULTS["languages"])
    assert Policy().ladder_days == tuple(DEFAULTS["rules"]["ladder_days"])
    assert Policy().pending_failure_hours == DEFAULTS["rules"]["pending_failure_hours"]
    assert Policy().min_round_gap_minutes == DEFAULTS["rules"]["min_round_gap_minutes"]
    assert Policy().fade_days == DEFAULTS["rules"]["fade_days"] == 14


def test_configured_time_rules_reach_the_policy() -> None:
    policy = parse_config({"rules": {"pending_failure_hours": 3.5, "min_round_gap_minutes": 10}}).rules
    assert (policy.pending_failure_hours, policy.min_round_gap_minutes) == (3.5, 10)


def test_configured_languages_reach_the_policy() -> None:
    assert parse_config({"languages": ["ko", "pt"]}).rules.languages == ("ko", "pt")


# A state file as the previous version wrote it: no last_counted_at anywhere.
PREVIOUS_VERSION = {
    "schema_version": 1, "mode": "enforce", "applied_rounds": ["r1", "r2"],
    "last_round": {"round_id": "r2", "started_at": "2026-11-29T23:00:00Z"},
    "models": {MODEL: {
        PROVIDERS[0]: {"failed_streak": 0, "clean_streak": 0,
                       "suspension": {"since": "2026-11-29T23:00:00Z", "until": "2026-11-30T23:00:00Z", "rung": 1,
                                      "mode": "enforce", "reason": "2 failed rounds in a row"},
                       "ladder": {"rung": 1, "last_suspension_started": "2026-11-29T23:00:00Z"},
                       "last_reasons": ["structured: fail: broken"], "next_language": "es"},
        PROVIDERS[1]: {"failed_streak": 1, "clean_streak": 0, "suspension": None,
                       "ladder": {"rung": 0, "last_suspension_started": None},
                       "last_reasons": ["language: fail: mixed"], "next_language": "pt"},
    }},
}


def test_a_state_file_of_the_previous_version_loads_with_its_suspensions(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    path.write_text(json.dumps(PREVIOUS_VERSION))
    state = load_state(path)
    suspended = state.provider(MODEL, PROVIDERS[0])
    assert suspended.suspension is not None and suspended.suspension.until == T0 + timedelta(days=1, hours=1)
    assert suspended.ladder.rung == 1 and suspended.last_counted_at is None
    assert state.provider(MODEL, PROVIDERS[1]).failed_streak == 1
    assert written(state)["models"][MODEL][PROVIDERS[0]]["suspension"] == \
        PREVIOUS_VERSION["models"][MODEL][PROVIDERS[0]]["suspension"]  # type: ignore[index]


def test_a_pending_failure_of_unknown_age_is_not_pending_any_more(tmp_path: Path) -> None:
    # The safe direction: the previous version's pending failure may be a day old; the next
    # failed round starts a new streak instead of suspending on it.
    path = tmp_path / "state.json"
    path.write_text(json.dumps(PREVIOUS_VERSION))
    t = Timeline(state=load_state(path), now=T0 + 2 * HALF_HOUR)
    decisions = t.round({PROVIDERS[1]: "fail"})
    assert t.suspension(PROVIDERS[1]) is None
    assert [d.action for d in decisions] == [Action.STREAK_RESTARTED]
    assert "unknown age" in decisions[0].reason
    assert t.suspension(PROVIDERS[0]) is not None  # the suspension stands
    assert actions(t.round({PROVIDERS[1]: "fail"}), Action.SUSPEND)


def test_the_time_of_the_last_counted_round_survives_a_round_trip(tmp_path: Path) -> None:
    t = Timeline()
    t.round({PROVIDERS[0]: "fail"})
    path = tmp_path / "state.json"
    save_state(path, t.state)
    raw = json.loads(path.read_text())
    assert raw["models"][MODEL][PROVIDERS[0]]["last_counted_at"] == iso(t.now)
    assert load_state(path).provider(MODEL, PROVIDERS[0]).last_counted_at == t.now


def test_a_garbled_last_counted_time_is_refused_naming_the_file(tmp_path: Path) -> None:
    doc = json.loads(json.dumps(PREVIOUS_VERSION))
    doc["models"][MODEL][PROVIDERS[1]]["last_counted_at"] = "yesterday"
    path = tmp_path / "state.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(StoreError, match=str(path)):
        load_state(path)


def test_state_survives_a_round_trip(tmp_path: Path) -> None:
    t = Timeline()
    t.rounds(2, {PROVIDERS[0]: "fail"})
    path = tmp_path / "state.json"
    save_state(path, t.state)
    assert load_state(path) == t.state


def test_the_state_file_does_not_grow_with_history(tmp_path: Path) -> None:
    t = Timeline()
    sizes = []
    for i in range(300):
        t.round({PROVIDERS[0]: "fail"} if i % 7 < 2 else None, after=HALF_HOUR * 3)
        if i in (150, 299):
            sizes.append(len(json.dumps(written(t.state))))
    assert sizes[1] <= sizes[0] * 1.1


def test_the_round_state_gives_the_next_languages(tmp_path: Path) -> None:
    t = Timeline()
    t.round()
    path = tmp_path / "state.json"
    save_state(path, t.state)
    plan = read_round_state(path).language_plan()
    assert plan[MODEL][PROVIDERS[0]] == LANGUAGES[1]


def test_the_round_state_is_empty_without_a_state_file(tmp_path: Path) -> None:
    assert read_round_state(tmp_path / "missing.json").language_plan() == {}


def test_the_round_state_refuses_a_corrupt_file_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    path.write_text("{\n  not json\n")
    with pytest.raises(StoreError, match=rf"{path}: line 2"):
        read_round_state(path)


def test_writes_are_atomic_and_leave_no_temporary_files(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    save_state(path, Timeline().state)
    save_state(path, Timeline().state)
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]


def test_a_state_with_an_unsafe_tag_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    path.write_text(json.dumps({"schema_version": 1, "models": {MODEL: {"a;b": {}}}}))
    with pytest.raises(StoreError, match="not a safe tag"):
        load_state(path)


def test_time_is_written_in_utc_with_z(tmp_path: Path) -> None:
    t = Timeline()
    t.rounds(2, {PROVIDERS[0]: "fail"})
    doc = written(t.state)
    assert doc["last_round"]["started_at"] == (T0 + 2 * HALF_HOUR).isoformat().replace("+00:00", "Z")


def test_a_limit_that_changes_between_rounds_is_noted_through_the_judge_s_state(tmp_path: Path) -> None:
    # Issue 22 item 1: round 1's listed limits reach the state (results.json models.M.limits ->
    # the judge); round 2's plan reads them back and notes the change, deciding nothing.
    from rules_factories import results

    from core.results_read import read_results
    from judge.suspension.rules import apply_round
    from judge.suspension.state import JudgeState
    from probes.http.records import Endpoint
    from probes.round.planning import RoundPlan, read_plan

    doc = results()
    doc["models"][MODEL]["limits"] = {p: [131072, 16384] for p in PROVIDERS}
    state, _ = apply_round(JudgeState(), read_results(doc), Policy(), now=T0 + timedelta(minutes=5))
    path = tmp_path / "state.json"
    save_state(path, state)
    previous = previous_limits(read_round_state(path))
    assert previous[MODEL][PROVIDERS[0]].max_completion_tokens == 16384
    endpoints = tuple(Endpoint(MODEL, p, p.title(), None, ("max_tokens",), 0.0, 0.0, 131072,
                               8192 if p == PROVIDERS[0] else 16384, 0) for p in PROVIDERS)
    plan = RoundPlan.of({MODEL: endpoints}).with_settings(parse_config({"models": [MODEL]}), {}, previous)
    assert plan.notes == {MODEL: (f"{PROVIDERS[0]}: max_completion_tokens changed from 16384 to 8192 since the "
                                  "previous round",)}
    assert read_plan(written(plan)).notes == plan.notes  # discovery.json keeps them
    assert previous_limits(read_round_state(tmp_path / "missing.json")) == {}

