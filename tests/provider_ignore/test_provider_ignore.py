"""ProviderIgnore: the backend sees fresh lists without a redeploy, and the last good one on errors."""

from __future__ import annotations

import logging
import os
from datetime import timedelta
from pathlib import Path

import pytest
from judge_cli_support import MODEL, T0, iso

from canary.state.judge_files import save_state
from judge.suspension.state import JudgeState, ProviderState, Suspension
from provider_ignore import ProviderIgnore


def _touch_later(path: Path, text: str) -> None:
    """Rewrite and move the mtime forward, so the test never depends on the clock's resolution."""
    old = path.stat().st_mtime_ns if path.exists() else 0
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(old + 10**9, old + 10**9))


@pytest.fixture
def paths(tmp_path: Path) -> tuple[Path, Path, Path]:
    state, builtin, incidents = tmp_path / "state.json", tmp_path / "builtin.yaml", tmp_path / "incidents.yaml"
    builtin.write_text(f'"{MODEL}":\n  - provider: b/fp8\n    reason: measured\n')
    incidents.write_text("# none yet\n")
    return state, builtin, incidents


def test_it_merges_the_three_layers(paths: tuple[Path, Path, Path]) -> None:
    state = paths[0]
    save_state(state, JudgeState(models={MODEL: {"s/fp8": ProviderState(
        suspension=Suspension(T0, T0 + timedelta(days=1), 1, "enforce", "r"))}}))
    assert ProviderIgnore(*paths).get(MODEL, now=T0) == ["b/fp8", "s/fp8"]
    assert ProviderIgnore(*paths).get(MODEL, now=T0 + timedelta(days=1)) == ["b/fp8"]


def test_it_rereads_a_file_that_changed(paths: tuple[Path, Path, Path]) -> None:
    ignore = ProviderIgnore(*paths)
    assert ignore.get(MODEL, now=T0) == ["b/fp8"]
    _touch_later(paths[2], f'"{MODEL}":\n  - provider: i/fp8\n    reason: r\n    added_at: {iso(T0)}\n')
    assert ignore.get(MODEL, now=T0) == ["b/fp8", "i/fp8"]


def test_it_serves_the_last_good_list_when_a_file_breaks(paths: tuple[Path, Path, Path],
                                                         caplog: pytest.LogCaptureFixture) -> None:
    ignore = ProviderIgnore(*paths)
    assert ignore.get(MODEL, now=T0) == ["b/fp8"]
    _touch_later(paths[1], "  : [broken\n")
    with caplog.at_level(logging.WARNING):
        assert ignore.get(MODEL, now=T0) == ["b/fp8"]
    assert "last good" in caplog.text and str(paths[1]) in caplog.text
    _touch_later(paths[1], f'"{MODEL}":\n  - provider: c/fp8\n    reason: fixed\n')
    assert ignore.get(MODEL, now=T0) == ["c/fp8"]


def test_a_file_that_disappears_keeps_its_last_contents(paths: tuple[Path, Path, Path]) -> None:
    ignore = ProviderIgnore(*paths)
    assert ignore.get(MODEL, now=T0) == ["b/fp8"]
    paths[1].unlink()
    assert ignore.get(MODEL, now=T0) == ["b/fp8"]


def test_missing_files_at_start_mean_nothing_is_excluded(tmp_path: Path) -> None:
    ignore = ProviderIgnore(tmp_path / "s.json", tmp_path / "b.yaml", tmp_path / "i.yaml")
    assert ignore.get(MODEL, now=T0) == []


def test_it_imports_nothing_beyond_the_standard_library_and_pyyaml() -> None:
    import subprocess
    import sys

    code = ("import sys; import provider_ignore; "
            "bad = [m for m in ('httpx', 'pytest', 'jsonschema', 'lingua', 'aiohttp', 'msgspec', 'scipy', "
            "'judge', 'canary', 'probes', 'simulator') if m in sys.modules]; "
            "sys.exit(1 if bad else 0)")
    repo = Path(__file__).resolve().parents[2]
    assert subprocess.run([sys.executable, "-c", code], cwd=repo, check=False).returncode == 0
