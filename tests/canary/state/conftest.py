"""Fixtures of the commit-back tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from git_world import Clone, make_world


@pytest.fixture
def main_world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Clone, Clone]:
    """The remote, the bot's clone and a person's, everything on main (paths.state_branch empty)."""
    w = make_world(tmp_path, monkeypatch, state_branch="", tracked_state=True)
    return w.remote, w.bot, w.person
