"""`canary ignore` always equals builtin + incidents + suspensions, minus expired entries."""

from __future__ import annotations

import json
import tempfile
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from judge_cli_support import MODEL, T0, Files, files_in, iso

from canary.state.judge_files import save_state
from judge.suspension.state import JudgeState, ProviderState, Suspension

TAGS = st.sampled_from(["a/fp8", "b/fp8", "c/bf16", "d/fp4"])
HOURS = st.integers(min_value=-48, max_value=48)


def _write(f: Files, builtin: list[str], incidents: list[tuple[str, int | None]],
           suspensions: dict[str, tuple[int, str]]) -> None:
    f.builtin.parent.mkdir(parents=True, exist_ok=True)
    f.builtin.write_text(f'"{MODEL}":\n' + "".join(f"  - provider: {t}\n    reason: b\n" for t in builtin)
                         if builtin else "# none\n")
    lines = [f'"{MODEL}":\n'] if incidents else ["# none\n"]
    for tag, hours in incidents:
        lines.append(f"  - provider: {tag}\n    reason: i\n    added_at: {iso(T0 - timedelta(days=3))}\n")
        if hours is not None:
            lines.append(f"    expires: {iso(T0 + timedelta(hours=hours))}\n")
    f.incidents.write_text("".join(lines))
    state = JudgeState(models={MODEL: {
        tag: ProviderState(suspension=Suspension(T0 - timedelta(days=2), T0 + timedelta(hours=h), 1, mode, "s"))
        for tag, (h, mode) in suspensions.items()}})
    save_state(f.state, state)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(builtin=st.lists(TAGS, max_size=3, unique=True),
       incidents=st.lists(st.tuples(TAGS, st.none() | HOURS), max_size=3, unique_by=lambda x: x[0]),
       suspensions=st.dictionaries(TAGS, st.tuples(HOURS, st.sampled_from(["enforce", "observe"])), max_size=3),
       now_hours=HOURS)
def test_ignore_equals_the_union_of_the_layers_minus_expired(
        capsys: pytest.CaptureFixture[str], builtin: list[str], incidents: list[tuple[str, int | None]],
        suspensions: dict[str, tuple[int, str]], now_hours: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        f = files_in(Path(tmp), capsys)
        _write(f, builtin, incidents, suspensions)
        code, out, err = f.canary("ignore", "--model", MODEL, "--now", iso(T0 + timedelta(hours=now_hours)))
    assert code == 0, err
    expected = set(builtin) | {t for t, h in incidents if h is None or h > now_hours} | {
        t for t, (h, mode) in suspensions.items() if mode == "enforce" and h > now_hours}
    assert json.loads(out) == sorted(expected)


def test_without_a_model_every_known_model_is_listed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = files_in(tmp_path, capsys)
    _write(f, ["a/fp8"], [], {})
    code, out, _ = f.canary("ignore", "--now", iso(T0))
    assert code == 0 and json.loads(out) == {MODEL: ["a/fp8"]}


def test_path_overrides_point_at_copies(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = files_in(tmp_path, capsys)
    copy = tmp_path / "copy.yaml"
    copy.write_text(f'"{MODEL}":\n  - provider: z/fp8\n    reason: r\n')
    code, out, _ = f.canary("ignore", "--model", MODEL, "--builtin", str(copy), "--now", iso(T0))
    assert code == 0 and json.loads(out) == ["z/fp8"]
