"""Commit-back's retries (core/retry.py's Backoff): how many pushes, and the pauses between them."""

from __future__ import annotations

from pathlib import Path

import pytest
from git_world import PROVIDERS, World, make_world

from canary.state.commit_back import CommitBackError
from canary.state.state_branch import STATE_BRANCH_PAUSES_S, Carried, commit_to_state_branch
from core.retry import Backoff


def refusing_remote(world: World, log: Path) -> None:
    """A remote that refuses every push, and counts them."""
    world.hook(f"#!/bin/sh\necho push >> {log}\necho 'refused by a rule' >&2\nexit 1\n")


def test_the_state_branch_waits_before_it_retries_and_stops_when_the_branch_does_not_move(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    world = make_world(tmp_path, monkeypatch, state_branch="canary-state")
    refusing_remote(world, log := tmp_path / "pushes")
    world.bot.judge(1, {PROVIDERS[0]: "fail"})
    files, slept = [world.bot.dir / "state/canary-state.json", world.bot.dir / "state/audit.jsonl"], []
    with pytest.raises(CommitBackError, match="did not move"):
        commit_to_state_branch(world.bot.dir, Carried(files), lambda: "canary: round\n", remote="origin",
                               branch="canary-state", tries=Backoff(5, STATE_BRANCH_PAUSES_S).tries(slept.append))
    assert log.read_text().count("push") == 2 and slept == [2.0]
