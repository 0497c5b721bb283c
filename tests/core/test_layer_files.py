"""The backend's reader of the state file's suspensions (core/layer_files.py) against the judge's own writer."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from judge_cli_support import MODEL, T0

from canary.state.judge_files import save_state
from core.layer_files import read_suspensions
from core.layers import SUSPENSION, effective_ignore, would_ignore
from core.store import StoreError
from judge.suspension.exclusions import suspension_entries
from judge.suspension.state import JudgeState, ProviderState, Suspension


def _state() -> JudgeState:
    return JudgeState(models={MODEL: {
        "e/fp8": ProviderState(suspension=Suspension(T0, T0 + timedelta(days=1), 2, "enforce", "two rounds")),
        "o/fp8": ProviderState(suspension=Suspension(T0, T0 + timedelta(days=3), 1, "observe", "would")),
        "c/fp8": ProviderState(failed_streak=1)}})


def test_it_reads_what_the_judge_writes_as_the_judge_sees_it(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    save_state(path, _state())
    read = read_suspensions(path)
    assert sorted(read, key=lambda e: e.provider) == sorted(suspension_entries(_state()), key=lambda e: e.provider)
    assert {e.layer for e in read} == {SUSPENSION}
    assert effective_ignore(MODEL, read, T0) == ["e/fp8"]
    assert would_ignore(MODEL, read, T0 + timedelta(days=2)) == ["o/fp8"]  # the enforced one expired


@pytest.mark.parametrize(("edit", "named"), [
    (lambda raw: raw.update(schema_version=2), "schema_version: expected 1, got 2"),
    (lambda raw: raw["models"][MODEL]["e/fp8"]["suspension"].pop("until"),
     f"models.{MODEL}.e/fp8.suspension.until: expected a string"),
    (lambda raw: raw["models"][MODEL]["e/fp8"]["suspension"].update(mode="enforced"),
     f"models.{MODEL}.e/fp8.suspension.mode: expected observe or enforce"),
    (lambda raw: raw["models"][MODEL]["e/fp8"]["suspension"].update(until="tomorrow"),
     f"models.{MODEL}.e/fp8.suspension"),
])
def test_a_state_that_would_change_who_is_excluded_is_refused_naming_the_key(tmp_path: Path, edit: object,
                                                                            named: str) -> None:
    path = tmp_path / "state.json"
    save_state(path, _state())
    raw = json.loads(path.read_text(encoding="utf-8"))
    assert callable(edit)
    edit(raw)
    path.write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(StoreError, match="Nothing was written") as caught:
        read_suspensions(path)
    assert named in str(caught.value)


def test_a_missing_state_file_holds_no_suspensions(tmp_path: Path) -> None:
    assert read_suspensions(tmp_path / "absent.json") == ()
