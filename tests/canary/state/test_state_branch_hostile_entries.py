"""A state branch holding entries that are not regular files (issue 31): a symbolic link or a
submodule where the judge's file or a history file should be. `canary fetch-state` refuses them by
name, writes nothing, and never crashes with a traceback."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from git_world import World, git, make_world

from canary.state.git import BOT_IDENTITY

STATE = "state/canary-state.json"
AUDIT = "state/audit.jsonl"


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    w = make_world(tmp_path, monkeypatch, state_branch="canary-state")
    for n in (1, 2):
        assert w.bot.fetch_state() == 0
        w.bot.judge(n, {"aurora/fp8": "fail"})
        assert w.bot.commit() == 0
    return w


def _hostile_commit(world: World, path: str, target: str) -> None:
    """Someone with push rights to the state branch replaces `path` by a symbolic link to `target`."""
    d = world.person.dir
    git(d, "fetch", "--quiet", "origin", "canary-state")
    git(d, "checkout", "--quiet", "-B", "canary-state", "FETCH_HEAD")
    link = d / path
    link.parent.mkdir(parents=True, exist_ok=True)
    if link.is_dir() and not link.is_symlink():
        shutil.rmtree(link)
    elif link.exists() or link.is_symlink():
        link.unlink()
    os.symlink(target, link)
    git(d, "add", "-A", path)
    git(d, "-c", f"user.name={BOT_IDENTITY[0]}", "-c", f"user.email={BOT_IDENTITY[1]}", "commit", "--quiet",
        "-m", "a symlink")
    git(d, "push", "--quiet", "origin", "canary-state")
    git(d, "checkout", "--quiet", "main")


@pytest.mark.parametrize("path", [STATE, AUDIT, "state/history/rounds/evil.json", "state/history"])
def test_fetch_state_refuses_a_symbolic_link_by_name_and_writes_nothing(
        world: World, path: str, capsys: pytest.CaptureFixture[str]) -> None:
    _hostile_commit(world, path, "/etc/passwd")
    before = {p: p.read_bytes() for p in (world.bot.dir / "state").rglob("*") if p.is_file()}
    capsys.readouterr()
    assert world.bot.fetch_state("--force") == 1
    said = capsys.readouterr().err
    assert path in said and "symbolic link" in said and "Traceback" not in said, said
    assert {p: p.read_bytes() for p in (world.bot.dir / "state").rglob("*") if p.is_file()} == before
    assert not any(p.is_symlink() for p in (world.bot.dir / "state").rglob("*"))
