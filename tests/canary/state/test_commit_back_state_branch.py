"""The judge's files on their own branch (the default), against a real bare repository.

The remote protects main like a GitHub ruleset does for the workflow's token (a pre-receive hook
refuses the bot's commits there); people push to main meanwhile, as merged pull requests would.
The state must land on `canary-state`, people's pushes must survive, nothing may be forced, and a
push that stays rejected must show git's own message.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from git_world import (
    HALF_HOUR,
    INCIDENTS_HEADER,
    PROTECTED_MAIN_HOOK,
    PROVIDERS,
    RULE_ON_STATE_HOOK,
    T0,
    World,
    git,
    iso,
    make_world,
)
from judge_cli_support import MODEL

BAD = PROVIDERS[0]
THREE = ("aurora/fp8", "borealis/bf16", "cirrus/fp8")
STATE = "state/canary-state.json"
AUDIT = "state/audit.jsonl"


def incident(provider: str) -> str:
    return (INCIDENTS_HEADER + f'"{MODEL}":\n  - provider: {provider}  # by hand\n    reason: filters\n'
            "    added_at: 2026-11-29\n")


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    w = make_world(tmp_path, monkeypatch, state_branch="canary-state")
    w.hook(PROTECTED_MAIN_HOOK)
    return w


def remote_state(w: World) -> dict:  # type: ignore[type-arg]
    return dict(json.loads(w.show("canary-state", STATE)))


def remote_audit(w: World) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(line) for line in w.show("canary-state", AUDIT).splitlines()]


def is_ancestor(w: World, old: str, new: str) -> bool:
    import subprocess
    return subprocess.run(["git", "merge-base", "--is-ancestor", old, new], cwd=w.remote,
                          check=False).returncode == 0


def round_on_tip(w: World, n: int, spec: dict | None = None, **kw: object) -> Path:  # type: ignore[type-arg]
    """What the judge job does: fetch the state branch's tip, then judge on it."""
    assert w.bot.fetch_state() == 0
    return w.bot.judge(n, spec, **kw)


def test_the_first_commit_creates_the_state_branch_as_an_orphan_and_main_is_untouched(world: World) -> None:
    main_before = world.tip("main")
    assert world.bot.commit() == 0 and not world.has("canary-state")  # nothing judged yet: nothing to create
    round_on_tip(world, 1, {BAD: "fail"})
    assert world.bot.commit() == 0
    first = world.tip("canary-state")
    assert git(world.remote, "rev-list", "--parents", "-n", "1", first).split() == [first]  # no parent: an orphan
    tree = set(git(world.remote, "ls-tree", "-r", "--name-only", first).split())
    (recorded,) = tree - {"README.md", STATE}  # no decision yet, so no audit log; the round in the history
    assert recorded.startswith("state/history/rounds/2026-11/29/") and recorded.endswith(".xz")
    round_on_tip(world, 2, {BAD: "fail"})
    assert world.bot.commit() == 0
    assert [a["action"] for a in remote_audit(world)] == ["suspend"]
    assert remote_state(world)["models"][MODEL][BAD]["suspension"]["mode"] == "enforce"
    assert git(world.remote, "rev-parse", "canary-state^").strip() == first
    assert world.tip("main") == main_before
    assert "state/" not in git(world.remote, "ls-tree", "-r", "--name-only", "main")


def test_a_persons_concurrent_push_to_main_survives_and_nothing_is_forced(world: World) -> None:
    round_on_tip(world, 1, {BAD: "fail"})
    assert world.bot.commit() == 0
    before = world.tip("canary-state")
    round2 = round_on_tip(world, 2, {BAD: "fail"})
    persons = world.person_pushes_to_main("exclusions/incidents.yaml", incident("cirrus/fp8"), "incident: cirrus")
    assert world.bot.commit("--reapply", str(round2)) == 0
    assert world.tip("main") == persons and world.show("main", "exclusions/incidents.yaml") == incident("cirrus/fp8")
    assert is_ancestor(world, before, world.tip("canary-state"))  # fast-forward only
    state = remote_state(world)
    assert state["applied_rounds"] == ["round-1", "round-2"]
    assert state["models"][MODEL][BAD]["suspension"] is not None  # cirrus out still leaves 2 of 3 usable


def test_an_exclusion_pushed_to_main_during_the_round_is_weighed_by_the_floor(world: World) -> None:
    round_on_tip(world, 1, {THREE[0]: "fail"}, providers=THREE)
    assert world.bot.commit() == 0
    round2 = round_on_tip(world, 2, {THREE[0]: "fail"}, providers=THREE)
    assert world.bot.state()["models"][MODEL][THREE[0]]["suspension"] is not None  # as judged: 2 of 3 stay
    world.person_pushes_to_main("exclusions/incidents.yaml", incident(THREE[1]), "incident: borealis")
    assert world.bot.commit("--reapply", str(round2)) == 0
    state = remote_state(world)
    assert state["models"][MODEL][THREE[0]]["suspension"] is None  # 1 usable endpoint would remain: floor
    assert [a["action"] for a in remote_audit(world) if a["round_id"] == "round-2"] == ["floor_held"]
    assert [d["action"] for d in world.bot.decisions()["decisions"]] == ["floor_held"]  # what gets announced


def test_a_lift_pushed_to_the_state_branch_meanwhile_survives_the_reapplied_round(world: World) -> None:
    round_on_tip(world, 1, {BAD: "fail"})
    round_on_tip(world, 2, {BAD: "fail"})
    assert world.bot.commit() == 0  # round 2 suspended BAD
    round3 = round_on_tip(world, 3, {BAD: "fail"})
    person = world.person
    assert person.fetch_state() == 0
    assert person.canary("lift", "--model", MODEL, "--provider", BAD, "--reason", "fixed upstream",
                         "--now", iso(T0 + 2 * HALF_HOUR)) == 0
    assert person.commit("--message", "canary: lift aurora/fp8 (fixed upstream)") == 0
    lifted = world.tip("canary-state")
    assert world.bot.commit("--reapply", str(round3)) == 0
    state = remote_state(world)
    assert "round-3" in state["applied_rounds"]
    assert state["models"][MODEL][BAD]["suspension"] is None and state["models"][MODEL][BAD]["failed_streak"] == 1
    assert [a["action"] for a in remote_audit(world)].count("lift") == 1
    assert is_ancestor(world, lifted, world.tip("canary-state"))


def test_a_refused_reapply_pushes_nothing_and_says_why(world: World, capsys: pytest.CaptureFixture[str]) -> None:
    round_on_tip(world, 1, {BAD: "fail"})
    round_on_tip(world, 2, {BAD: "fail"})
    assert world.bot.commit() == 0
    round3 = round_on_tip(world, 3, {BAD: "fail"})
    person = world.person
    assert person.fetch_state() == 0
    assert person.canary("lift", "--model", MODEL, "--provider", BAD, "--reason", "fixed",
                         "--now", iso(T0 + 2 * HALF_HOUR)) == 0
    assert person.commit("--message", "canary: lift aurora/fp8 (fixed)") == 0
    lifted = world.tip("canary-state")
    round3.write_text("{ not a results file")  # the judge refuses to re-apply the round from it
    capsys.readouterr()
    assert world.bot.commit("--reapply", str(round3)) == 1
    assert world.tip("canary-state") == lifted
    assert "canary judge refused to re-apply the round" in capsys.readouterr().err


def test_without_reapply_a_moved_state_branch_stops_and_pushes_nothing(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    round_on_tip(world, 1, {BAD: "fail"})
    assert world.bot.commit() == 0
    round_on_tip(world, 2, {BAD: "fail"})
    other = world.clone("other-run")  # a concurrent run commits the same round first
    assert other.fetch_state() == 0
    other.judge(2, {BAD: "fail"})
    assert other.commit() == 0
    tip = world.tip("canary-state")
    capsys.readouterr()
    assert world.bot.commit() == 1
    assert "moved since your files were fetched" in capsys.readouterr().err and world.tip("canary-state") == tip


def test_a_rule_on_the_state_branch_is_reported_with_gits_own_message(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    world.hook(RULE_ON_STATE_HOOK)
    round_on_tip(world, 1, {BAD: "fail"})
    capsys.readouterr()
    assert world.bot.commit("--retries", "3") == 1
    err = capsys.readouterr().err
    assert "GH013: Repository rule violations found for refs/heads/canary-state" in err
    assert "did not move" in err and "Nothing was forced" in err
    assert not world.has("canary-state")


def test_fetch_state_copies_the_tip_and_never_overwrites_a_round_that_was_not_pushed(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    assert world.bot.fetch_state() == 0 and not (world.bot.dir / STATE).exists()  # no branch yet: nothing
    round_on_tip(world, 1, {BAD: "fail"})
    assert world.bot.commit() == 0
    pushed = (world.bot.dir / STATE).read_bytes()
    world.bot.judge(2, {BAD: "fail"})  # judged here, never pushed
    local = (world.bot.dir / STATE).read_bytes()
    capsys.readouterr()
    assert world.bot.fetch_state() == 1
    assert "round-2" in capsys.readouterr().err and (world.bot.dir / STATE).read_bytes() == local
    assert world.bot.fetch_state("--force") == 0 and (world.bot.dir / STATE).read_bytes() == pushed
    fresh = world.clone("fresh")
    (fresh.dir / "state").mkdir()
    (fresh.dir / STATE).write_text('{"schema_version": 1, "models": {}, "applied_rounds": []}')  # stale copy
    (fresh.dir / AUDIT).write_text("a line the branch does not have\n")
    assert fresh.fetch_state() == 0 and (fresh.dir / STATE).read_bytes() == pushed
    assert not (fresh.dir / AUDIT).exists()  # a copy of the branch: it has no audit log yet


def test_a_developers_full_clone_keeps_its_whole_history(world: World) -> None:
    dev = world.clone("dev", shallow=False)
    round_on_tip(world, 1, {BAD: "fail"})
    assert world.bot.commit() == 0
    assert dev.fetch_state() == 0
    round2 = dev.judge(2, {BAD: "fail"})
    world.person_pushes_to_main("exclusions/incidents.yaml", incident("cirrus/fp8"), "incident: cirrus")
    assert dev.commit("--reapply", str(round2)) == 0
    assert git(dev.dir, "rev-parse", "--is-shallow-repository").strip() == "false"
    assert git(dev.dir, "rev-list", "--count", world.tip("main")).strip() == "2"  # seed + the person's incident
    assert git(dev.dir, "rev-list", "--count", world.tip("canary-state")).strip() == "2"  # both rounds' commits
