"""The round history travels with the judge's state, against a real bare repository.

Each round adds one file under state/history/ and compaction deletes old ones; both must reach
the state branch in the round's own commit, a fresh
clone (a new runner) must get every round back with `canary fetch-state`, a concurrent run's
round must be neither lost nor duplicated, and nothing may be forced: the remote refuses
non-fast-forward updates, as a ruleset blocking force pushes does.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from git_world import PROTECTED_MAIN_HOOK, PROVIDERS, Clone, World, git, make_world
from judge_cli_support import MODEL

from canary.history.store import read_span

BAD = PROVIDERS[0]
HISTORY = "state/history"
DAY = 48  # rounds a day: round n starts n half hours after T0
COMPACTED_DAY = "2026-11-29"  # the day of rounds 1 and 2, folded into a day file 36 days later


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    w = make_world(tmp_path, monkeypatch, state_branch="canary-state")
    w.hook(PROTECTED_MAIN_HOOK)
    git(w.remote, "config", "receive.denyNonFastForwards", "true")  # a force push would be refused
    return w


def branch_history(w: World, ref: str = "canary-state") -> dict[str, str]:
    """path -> blob id of every history file on `ref`."""
    out = git(w.remote, "ls-tree", "-r", ref, "--", HISTORY)
    return {line.split("\t")[1]: line.split()[2] for line in out.splitlines()}


def local_history(clone: Clone) -> dict[str, bytes]:
    root = clone.dir / HISTORY
    return {p.relative_to(clone.dir).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def recorded(clone: Clone) -> list[str]:
    """Every round id the clone's history holds, full-detail rounds and compacted days alike."""
    span = read_span(clone.dir / HISTORY)
    return sorted([r.round_id for r in span.rounds] + [r.round_id for d in span.days for r in d.rounds],
                  key=lambda i: int(i.removeprefix("round-")))


def changes(w: World, ref: str = "canary-state") -> dict[str, str]:
    """path -> A/M/D of the tip commit of `ref` against its parent."""
    out = git(w.remote, "diff-tree", "-r", "--no-commit-id", "--name-status", f"{ref}^", ref)
    return {line.split("\t")[1]: line.split("\t")[0] for line in out.splitlines()}


def is_ancestor(w: World, old: str, new: str) -> bool:
    return subprocess.run(["git", "merge-base", "--is-ancestor", old, new], cwd=w.remote,
                          check=False).returncode == 0


def round_on_tip(clone: Clone, n: int, spec: dict | None = None) -> Path:  # type: ignore[type-arg]
    """What the judge job does: fetch the state branch's tip, judge on it."""
    assert clone.fetch_state() == 0
    return clone.judge(n, spec)


def test_the_history_survives_the_runner_a_fresh_clone_gets_every_round_back(world: World) -> None:
    for n in (1, 2, 3):
        round_on_tip(world.bot, n, {BAD: "fail"})
        assert world.bot.commit() == 0
    runner = world.clone("next-runner")  # a new runner: nothing of the previous one's disk
    assert not (runner.dir / HISTORY).exists()
    assert runner.fetch_state() == 0
    assert recorded(runner) == ["round-1", "round-2", "round-3"]
    assert local_history(runner) == local_history(world.bot)
    round_on_tip(runner, 4)
    assert runner.commit() == 0
    assert len([p for p in branch_history(world) if "/rounds/" in p]) == 4
    assert world.tip("main") == git(world.person.dir, "rev-parse", "origin/main").strip()  # main untouched
    assert not branch_history(world, "main")


def test_a_round_commit_adds_its_own_file_and_rewrites_no_other_history_file(world: World) -> None:
    round_on_tip(world.bot, 1, {BAD: "fail"})
    assert world.bot.commit() == 0
    before = branch_history(world)
    round_on_tip(world.bot, 2, {BAD: "fail"})
    leftover = world.bot.dir / HISTORY / "rounds" / ".interrupted.xz.tmp"  # an atomic write cut short
    leftover.write_bytes(b"half a file")
    assert world.bot.commit() == 0
    after = branch_history(world)
    (new,) = set(after) - set(before)
    assert {p: c for p, c in changes(world).items() if p.startswith(HISTORY)} == {new: "A"}
    assert {p: after[p] for p in before} == before  # the same objects: nothing rewritten
    assert not any(".tmp" in p for p in after)


def test_compaction_deletions_reach_the_branch_and_every_clone(world: World) -> None:
    round_on_tip(world.bot, 1, {BAD: "fail"})
    assert world.bot.commit() == 0
    round_on_tip(world.bot, 2)
    assert world.bot.commit() == 0
    other = world.clone("other")
    assert other.fetch_state() == 0
    old_rounds = [p for p in branch_history(world) if "/rounds/" in p]
    later = 36 * DAY + 1  # past the 35 days of full detail: the first day is folded
    round_on_tip(world.bot, later)
    assert world.bot.commit() == 0
    changed = changes(world)
    assert all(changed[p] == "D" for p in old_rounds)
    assert changed[f"{HISTORY}/days/2026/{COMPACTED_DAY}.xz"] == "A"
    assert not any("/rounds/2026-11/" in p for p in branch_history(world))
    assert other.fetch_state() == 0  # a clone holding the folded rounds loses them like the branch did
    assert not any("/rounds/2026-11/" in p for p in local_history(other))
    assert recorded(other) == ["round-1", "round-2", f"round-{later}"]


def test_a_round_a_concurrent_run_pushed_is_kept_and_ours_is_recorded_once(world: World) -> None:
    round_on_tip(world.bot, 1)
    assert world.bot.commit() == 0
    ours = round_on_tip(world.bot, 3, {BAD: "fail"})  # judged on round 1's state ...
    other = world.clone("other-run")  # ... while another run judges and pushes round 2
    round_on_tip(other, 2, {BAD: "fail"})
    assert other.commit() == 0
    theirs = world.tip("canary-state")
    assert world.bot.commit("--reapply", str(ours)) == 0
    assert is_ancestor(world, theirs, world.tip("canary-state"))
    assert recorded(world.bot) == ["round-1", "round-2", "round-3"]
    rounds = [p for p in branch_history(world) if "/rounds/" in p]
    assert len(rounds) == 3 and set(rounds) == set(local_history(world.bot))
    state = json.loads(world.show("canary-state", "state/canary-state.json"))
    assert state["applied_rounds"] == ["round-1", "round-2", "round-3"]
    assert state["models"][MODEL][BAD]["suspension"] is not None


def test_the_same_round_committed_by_two_runs_is_recorded_once_and_changes_nothing(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    round_on_tip(world.bot, 1)
    assert world.bot.commit() == 0
    ours = round_on_tip(world.bot, 2, {BAD: "fail"})
    rerun = world.clone("re-run")  # a re-run of the same round finishes first
    round_on_tip(rerun, 2, {BAD: "fail"})
    assert rerun.commit() == 0
    tip, history = world.tip("canary-state"), branch_history(world)
    capsys.readouterr()
    assert world.bot.commit("--reapply", str(ours)) == 0
    assert "already applied upstream" in capsys.readouterr().out
    assert world.tip("canary-state") == tip and branch_history(world) == history
    assert recorded(world.bot) == ["round-1", "round-2"]


def test_a_day_a_concurrent_run_compacted_is_not_compacted_again(world: World) -> None:
    round_on_tip(world.bot, 1)
    assert world.bot.commit() == 0
    later = 36 * DAY
    ours = round_on_tip(world.bot, later + 1)  # compacts day 1 locally ...
    other = world.clone("other-run")  # ... and so did the concurrent run that pushed first
    round_on_tip(other, later)
    assert other.commit() == 0
    day_file = f"{HISTORY}/days/2026/{COMPACTED_DAY}.xz"
    before = branch_history(world)
    assert world.bot.commit("--reapply", str(ours)) == 0
    after = branch_history(world)
    (new,) = set(after) - set(before)
    assert {p: c for p, c in changes(world).items() if p.startswith(HISTORY)} == {new: "A"}
    assert after[day_file] == before[day_file]  # folded once, by the run that got there first
    assert recorded(world.bot) == ["round-1", f"round-{later}", f"round-{later + 1}"]


def test_a_history_folder_missing_on_disk_is_never_deleted_from_the_branch(world: World) -> None:
    round_on_tip(world.bot, 1, {BAD: "fail"})
    round_on_tip(world.bot, 2, {BAD: "fail"})
    assert world.bot.commit() == 0
    history = branch_history(world)
    person = world.person
    assert person.fetch_state() == 0
    for path in sorted((person.dir / HISTORY).rglob("*"), reverse=True):  # someone cleans up by hand
        path.unlink() if path.is_file() else path.rmdir()
    (person.dir / HISTORY).rmdir()
    assert person.canary("lift", "--model", MODEL, "--provider", BAD,
                         "--reason", "fixed upstream", "--now", "2026-11-30T00:00:00Z") == 0
    assert person.commit("--message", "canary: lift aurora/fp8 (fixed upstream)") == 0
    assert "state/audit.jsonl" in changes(world) and branch_history(world) == history


def test_a_state_branch_from_before_the_history_gets_it_with_the_next_round(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    old = world.clone("old-canary", shallow=False)  # what an older canary left: state and audit only
    round_on_tip(old, 1)
    git(old.dir, "checkout", "--quiet", "--orphan", "canary-state")
    git(old.dir, "rm", "-r", "--cached", "--quiet", ".")
    git(old.dir, "add", "--force", "state/canary-state.json")
    git(old.dir, "-c", "user.name=old", "-c", "user.email=old@example.invalid", "commit", "--quiet", "-m", "old")
    git(old.dir, "push", "--quiet", "origin", "canary-state")
    kept = local_history(old)
    capsys.readouterr()
    assert old.fetch_state() == 0
    assert "not on the branch yet: the local one stands" in capsys.readouterr().out
    assert local_history(old) == kept
    round_on_tip(world.bot, 2)
    assert world.bot.commit() == 0
    assert [p for p in branch_history(world) if "/rounds/" in p]


def test_a_history_kept_outside_the_repository_never_blocks_the_states_commit(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    outside = world.root / "elsewhere" / "history"
    with world.bot.config.open("a") as config:
        config.write(f"  history: {outside}\n")  # under paths:, the configuration's last block
    capsys.readouterr()
    round_on_tip(world.bot, 1, {BAD: "fail"})
    assert "outside the repository" in capsys.readouterr().err
    assert world.bot.commit() == 0
    assert "is not carried with the state" in capsys.readouterr().err
    assert "round-1" in json.loads(world.show("canary-state", "state/canary-state.json"))["applied_rounds"]
    assert not branch_history(world) and [r.round_id for r in read_span(outside).rounds] == ["round-1"]
