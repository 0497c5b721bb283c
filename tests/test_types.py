"""Type checks: all source is clean under `mypy --strict` (pyproject sets strict)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _mypy() -> Path:
    mypy = Path(sys.executable).parent / "mypy"
    if not mypy.exists():
        pytest.skip("mypy is not installed next to this Python: `./dev test` installs it with the test extras")
    return mypy


# A cold mypy over all source takes over 120 s (the suite's limit) on a busy 2-core machine: the limit
# here is for a hang, not for the machine's speed.
@pytest.mark.timeout(600)
@pytest.mark.parametrize("args", [
    pytest.param(["--strict", "core", "judge", "canary", "probes", "simulator"], id="strict-all-source"),
])
def test_mypy_is_clean(args: list[str], tmp_path_factory: pytest.TempPathFactory) -> None:
    # A cache per invocation (strict and default results must not share one), kept for the session.
    cache = tmp_path_factory.mktemp("mypy-cache")
    proc = subprocess.run([str(_mypy()), "--cache-dir", str(cache), "--no-error-summary", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
