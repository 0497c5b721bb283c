"""Type checks: all source is clean under `mypy --strict` (pyproject sets strict)."""

from __future__ import annotations

import os
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


# The contract names are typed (core/vocabulary.py ContractName), and a judge's verdict takes its
# family's StrEnum member (judge/replies/verdict.py), so mypy, not an ast rule, refuses a misspelled
# contract or a code written as a string: this shows that guarantee can fail.
@pytest.mark.timeout(600)
def test_mypy_refuses_a_misspelled_contract_name_and_a_literal_code(tmp_path: Path) -> None:
    (tmp_path / "snippet.py").write_text(
        "from core.vocabulary import ContractName, case_id, contract\n"
        "from judge.replies.verdict import failed\n"
        "ok = case_id('m/x', 'p', ContractName.LATENCY)\n"
        "declared = contract(ContractName('latency'))\n"
        "bad = case_id('m/x', 'p', 'latnecy')\n"
        "slow = failed('ttft_exceeded', 'first token after 12 s')\n", encoding="utf-8")
    proc = subprocess.run([str(_mypy()), "--strict", "--cache-dir", str(tmp_path / "cache"), "--no-error-summary",
                           "--follow-imports=silent", str(tmp_path / "snippet.py")], cwd=ROOT,
                          capture_output=True, text=True, timeout=600, env={**os.environ, "MYPYPATH": str(ROOT)})
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stdout.splitlines() == [
        f"{tmp_path / 'snippet.py'}:5: error: Argument 3 to \"case_id\" has incompatible type \"str\"; "
        "expected \"ContractName\"  [arg-type]",
        f"{tmp_path / 'snippet.py'}:6: error: Argument 1 to \"failed\" has incompatible type \"str\"; "
        "expected \"StrEnum\"  [arg-type]"], proc.stdout
