"""Commit-back against a real bare repository, with a person pushing in between."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from judge_cli_support import HALF_HOUR, MODEL, PROVIDERS, T0, iso, results

from canary.cli import main
from canary.commit_back import commit_message

BAD = PROVIDERS[0]
INCIDENTS_HEADER = "# Incidents, edited by people.\n# Keep this comment.\n"
HAND_EDIT = f'"{MODEL}":\n  - provider: cirrus/fp8  # by hand\n    reason: filters\n    added_at: 2026-11-29\n'


def git(cwd: Path, *args: str) -> str:
    out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    return out.stdout


class Clone:
    """One working copy with its own canary.yaml (kept outside the repository)."""

    def __init__(self, root: Path, remote: Path, name: str, *, shallow: bool) -> None:
        self.dir = root / name
        git(root, "clone", *(["--depth", "1"] if shallow else []), f"file://{remote}", name)
        self.config = root / f"{name}.yaml"
        d = self.dir
        self.config.write_text(
            f"mode: enforce\npaths:\n  reports: {d / 'reports'}\n  state: {d / 'state/canary-state.json'}\n"
            f"  audit: {d / 'state/audit.jsonl'}\n  builtin: {d / 'exclusions/builtin.yaml'}\n"
            f"  incidents: {d / 'exclusions/incidents.yaml'}\n")

    def canary(self, *args: str) -> int:
        return main(["--config", str(self.config), *args])

    def judge(self, n: int, spec: dict[str, str] | None = None) -> Path:
        at = T0 + n * HALF_HOUR
        path = self.dir / "reports" / f"round{n}.json"
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps(results(spec, at=at, round_id=f"round-{n}")))
        assert self.canary("judge", str(path), "--now", iso(at), "--no-notify") == 0
        return path

    def commit(self, *extra: str) -> int:
        return self.canary("commit", "--repo", str(self.dir), "--branch", "main", *extra)

    def state(self) -> dict:  # type: ignore[type-arg]
        return json.loads((self.dir / "state/canary-state.json").read_text())


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Clone, Clone]:
    monkeypatch.setenv("HOME", str(tmp_path))  # no global git identity: the bot must bring its own
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for name in ("GITHUB_REF_NAME", "GITHUB_STEP_SUMMARY", "CANARY_WEBHOOK_URL"):
        monkeypatch.delenv(name, raising=False)
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "--bare", "-b", "main", str(remote))
    seed = tmp_path / "seed"
    git(tmp_path, "clone", f"file://{remote}", "seed")
    (seed / "exclusions").mkdir()
    (seed / "exclusions/incidents.yaml").write_text(INCIDENTS_HEADER)
    (seed / "exclusions/builtin.yaml").write_text("# reviewed\n")
    (seed / "state").mkdir()
    (seed / "state/audit.jsonl").write_text("")
    git(seed, "add", ".")
    git(seed, "-c", "user.name=seed", "-c", "user.email=seed@example.invalid", "commit", "-m", "seed")
    git(seed, "push", "origin", "HEAD:main")
    bot = Clone(tmp_path, remote, "bot", shallow=True)   # what actions/checkout gives
    person = Clone(tmp_path, remote, "person", shallow=False)
    git(person.dir, "config", "user.name", "Alice")
    git(person.dir, "config", "user.email", "alice@example.invalid")
    return remote, bot, person


def remote_file(remote: Path, path: str) -> str:
    return git(remote, "show", f"main:{path}")


def person_pushes(person: Clone, *commands: tuple[str, ...]) -> None:
    git(person.dir, "pull", "--rebase", "origin", "main")
    for command in commands:
        assert person.canary(*command) == 0
    git(person.dir, "add", "-A", "exclusions", "state")
    git(person.dir, "commit", "-m", "person: manual change")
    git(person.dir, "push", "origin", "HEAD:main")


def test_a_persons_incident_pushed_during_a_round_survives_the_commit_back(world: tuple[Path, Clone, Clone]) -> None:
    remote, bot, person = world
    bot.judge(1, {BAD: "fail"})
    assert bot.commit() == 0
    bot.judge(2, {BAD: "fail"})  # the round runs; meanwhile a person edits incidents.yaml by hand
    git(person.dir, "pull", "--rebase", "origin", "main")
    incidents = person.dir / "exclusions/incidents.yaml"
    incidents.write_text(incidents.read_text() + HAND_EDIT)
    git(person.dir, "commit", "-am", "incident: cirrus filters roleplay")
    git(person.dir, "push", "origin", "HEAD:main")
    assert bot.commit() == 0  # rejected, rebased (no conflict), pushed
    assert remote_file(remote, "exclusions/incidents.yaml") == INCIDENTS_HEADER + HAND_EDIT
    state = json.loads(remote_file(remote, "state/canary-state.json"))
    assert "round-2" in state["applied_rounds"] and state["models"][MODEL][BAD]["suspension"] is not None
    subject = git(remote, "log", "-1", "--format=%s", "main")
    assert subject.startswith("canary: round round-2 (enforce): 1 decision(s)")


def test_when_its_own_files_conflict_it_resets_and_reapplies_the_round(world: tuple[Path, Clone, Clone]) -> None:
    remote, bot, person = world
    bot.judge(1, {BAD: "fail"})
    bot.judge(2, {BAD: "fail"})
    assert bot.commit() == 0
    round3 = bot.judge(3, {BAD: "fail"})
    # Meanwhile a person lifts the suspension (state + audit change) and adds an incident.
    person_pushes(person, ("lift", "--model", MODEL, "--provider", BAD, "--reason", "fixed upstream",
                           "--now", iso(T0 + 2 * HALF_HOUR)),
                  ("incident", "add", "--model", MODEL, "--provider", "cirrus/fp8", "--reason", "r", "--now", iso(T0)))
    person_head = git(person.dir, "rev-parse", "HEAD").strip()
    assert bot.commit("--reapply", str(round3)) == 0
    state = json.loads(remote_file(remote, "state/canary-state.json"))
    assert "round-3" in state["applied_rounds"]
    assert state["models"][MODEL][BAD]["suspension"] is None  # the person's lift survived
    assert state["models"][MODEL][BAD]["failed_streak"] == 1  # round 3 re-applied on the lifted state
    audit = [json.loads(line) for line in remote_file(remote, "state/audit.jsonl").splitlines()]
    assert [a["action"] for a in audit].count("lift") == 1
    assert "cirrus/fp8" in remote_file(remote, "exclusions/incidents.yaml")
    git(remote, "merge-base", "--is-ancestor", person_head, "main")  # no force-push


def test_a_conflict_without_reapply_stops_and_forces_nothing(world: tuple[Path, Clone, Clone]) -> None:
    remote, bot, person = world
    bot.judge(1, {BAD: "fail"})
    bot.judge(2, {BAD: "fail"})
    assert bot.commit() == 0
    bot.judge(3, {BAD: "fail"})
    person_pushes(person, ("lift", "--model", MODEL, "--provider", BAD, "--reason", "fixed",
                           "--now", iso(T0 + 2 * HALF_HOUR)))
    before = git(remote, "rev-parse", "main")
    assert bot.commit() == 1
    assert git(remote, "rev-parse", "main") == before


def test_nothing_to_commit_is_fine(world: tuple[Path, Clone, Clone], capsys: pytest.CaptureFixture[str]) -> None:
    _, bot, _ = world
    assert bot.commit() == 0
    assert "nothing to commit" in capsys.readouterr().out


def test_other_uncommitted_changes_are_never_reset(world: tuple[Path, Clone, Clone]) -> None:
    _, bot, _ = world
    bot.judge(1, {BAD: "fail"})
    (bot.dir / "exclusions/builtin.yaml").write_text("# a local, unfinished edit\n")
    assert bot.commit() == 1
    assert (bot.dir / "exclusions/builtin.yaml").read_text() == "# a local, unfinished edit\n"


HOSTILE = ['a/b"; rm -rf ~; echo "', "x\ny: injected", "$(reboot)", "`id`", "a|b", "tag\x1b[31m"]


@pytest.mark.parametrize("tag", HOSTILE, ids=lambda t: ascii(t)[:10])
def test_commit_messages_never_contain_raw_hostile_tags(tag: str) -> None:
    doc = {"round_id": "r\nSigned-off-by: evil", "mode": "enforce", "decisions": [
        {"model": tag, "provider": tag, "action": "suspend; ls", "rung": "1;", "until": "soon`x`"}]}
    message = commit_message(doc)
    assert tag not in message and "evil" not in message
    assert all(ch not in message for ch in '`$;|"\x1b')
    assert message.splitlines()[0] == "canary: round <invalid round id> (enforce): 1 decision(s)"
    assert message.splitlines()[2] == "- unknown <invalid tag> (<invalid tag>)"
