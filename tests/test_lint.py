"""Lint of the whole tree with pyproject's rule sets: pyflakes, bugbear, import order, pyupgrade, line length."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing_under_the_projects_rule_sets() -> None:
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    if not Path(ruff).exists():
        pytest.skip("ruff is not installed: `./dev test` installs it with the test extras")
    proc = subprocess.run([ruff, "check", "--output-format", "concise", "."], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_no_file_of_the_repository_holds_a_merge_conflict_marker() -> None:
    # A conflict left inside a docstring or a Markdown page passes every other check.
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    marked = [name for name in tracked if (ROOT / name).is_file() and (ROOT / name).suffix in CHECKED_SUFFIXES
              and any(line.startswith(("<<<<<<< ", ">>>>>>> ")) for line in
                      (ROOT / name).read_text(encoding="utf-8", errors="replace").splitlines())]
    assert marked == [], f"merge conflict markers in {marked}"


CHECKED_SUFFIXES = (".py", ".md", ".yaml", ".yml", ".toml", ".js", ".css", ".json", ".txt")
