"""state/canary-state.json: round trip, the language plan, bounded size, and the Policy mirror."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from judge_cli_support import HALF_HOUR, MODEL, PROVIDERS, T0
from rules_factories import Timeline

from canary.config import ALL_LANGUAGES, DEFAULTS, parse_config
from canary.state import (
    load_state,
    policy_from_settings,
    read_language_plan,
    save_state,
    state_to_json,
)
from canary.store import StoreError
from judge.policy import DEFAULT_LANGUAGES, Policy


def test_the_policy_defaults_mirror_the_configuration_defaults() -> None:
    config = parse_config({})
    assert policy_from_settings(config.rules) == Policy()
    assert DEFAULT_LANGUAGES == ALL_LANGUAGES
    assert Policy().ladder_days == tuple(DEFAULTS["rules"]["ladder_days"])


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
            sizes.append(len(json.dumps(state_to_json(t.state))))
    assert sizes[1] <= sizes[0] * 1.1


def test_read_language_plan_returns_the_next_languages(tmp_path: Path) -> None:
    t = Timeline()
    t.round()
    path = tmp_path / "state.json"
    save_state(path, t.state)
    plan = read_language_plan(path)
    assert plan[MODEL][PROVIDERS[0]] == DEFAULT_LANGUAGES[1]


def test_read_language_plan_is_empty_without_a_state_file(tmp_path: Path) -> None:
    assert read_language_plan(tmp_path / "missing.json") == {}


def test_read_language_plan_refuses_a_corrupt_file_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    path.write_text("{\n  not json\n")
    with pytest.raises(StoreError, match=rf"{path}: line 2"):
        read_language_plan(path)


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
    doc = state_to_json(t.state)
    assert doc["last_round"]["started_at"] == (T0 + 2 * HALF_HOUR).isoformat().replace("+00:00", "Z")
