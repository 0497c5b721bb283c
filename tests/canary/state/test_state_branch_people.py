"""People's commands against the state branch, on a real bare repository: the branch asked for
without credentials (`canary fetch-state --exists`), and a `canary lift` that loses the race to
the bot's push (the person is told what to do, and `canary fetch-state` never discards the lift).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from git_world import HALF_HOUR, PROVIDERS, T0, World, git, iso, make_world
from judge_cli_support import MODEL

BAD = PROVIDERS[0]
STATE = "state/canary-state.json"


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    return make_world(tmp_path, monkeypatch, state_branch="canary-state")


def suspended(w: World) -> None:
    """Two failed rounds judged and committed by the bot: BAD is suspended on the branch."""
    for n in (1, 2):
        assert w.bot.fetch_state() == 0
        w.bot.judge(n, {BAD: "fail"})
        assert w.bot.commit() == 0


def test_exists_says_whether_the_state_branch_is_there_yet(world: World, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert world.bot.fetch_state("--exists") == 0 and capsys.readouterr().out == "false\n"
    suspended(world)
    capsys.readouterr()
    assert world.bot.fetch_state("--exists") == 0 and capsys.readouterr().out == "true\n"


def test_exists_fails_when_the_remote_cannot_be_asked_and_never_shows_the_token(
        world: World, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A transient failure is not an absent branch: the workflow's checkout must not be skipped."""
    git(world.bot.dir, "remote", "set-url", "origin", f"file://{world.root / 'gone.git'}")
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_s3cretTOKEN")
    capsys.readouterr()
    assert world.bot.fetch_state("--exists") == 1
    said = capsys.readouterr()
    assert said.out == "" and "cannot ask origin whether the branch canary-state exists" in said.err
    assert "ghs_s3cretTOKEN" not in said.err


def test_the_token_reaches_git_as_a_header_not_on_the_command_line(world: World, monkeypatch: pytest.MonkeyPatch,
                                                                 tmp_path: Path) -> None:
    """As actions/checkout passes it: git's environment (GIT_CONFIG_*), so no process list shows it."""
    seen = tmp_path / "seen.json"
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "git").write_text(f"""#!/bin/sh
python3 -c 'import json, os, sys; json.dump({{"argv": sys.argv[1:], "header": os.environ.get("GIT_CONFIG_VALUE_0", ""),
  "key": os.environ.get("GIT_CONFIG_KEY_0", "")}}, open("{seen}", "w"))' "$@"
exit 2
""")
    (fake / "git").chmod(0o755)
    from canary.state.state_branch import branch_exists
    monkeypatch.setenv("PATH", f"{fake}:/usr/bin:/bin")
    assert branch_exists(world.bot.dir, "origin", "canary-state", token="ghs_s3cretTOKEN") is False
    call = json.loads(seen.read_text())
    assert "ghs_s3cretTOKEN" not in " ".join(call["argv"]) and call["key"] == "http.extraheader"
    assert call["header"].startswith("AUTHORIZATION: basic ") and "ghs_s3cretTOKEN" not in call["header"]


def test_a_lift_that_loses_the_race_tells_the_person_what_to_do_and_fetch_state_keeps_it(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    suspended(world)
    person = world.person
    assert person.fetch_state() == 0
    assert person.canary("lift", "--model", MODEL, "--provider", BAD, "--reason", "fixed upstream",
                         "--now", iso(T0 + 2 * HALF_HOUR)) == 0
    lifted = (person.dir / STATE).read_bytes()
    assert world.bot.fetch_state() == 0  # meanwhile the bot commits round 3
    world.bot.judge(3, {BAD: "fail"})
    assert world.bot.commit() == 0
    tip = world.tip("canary-state")
    capsys.readouterr()
    assert person.commit("--message", "canary: lift aurora/fp8") == 1
    said = capsys.readouterr().err
    assert "your change is still in state/canary-state.json" in said
    assert "`canary fetch-state --force`" in said and "`canary lift`" in said and world.tip("canary-state") == tip
    assert person.fetch_state() == 1  # following the old advice would have discarded the lift
    refused = capsys.readouterr().err
    assert "changed here since they were fetched from canary-state" in refused and "never pushed" in refused
    assert "--force" in refused and (person.dir / STATE).read_bytes() == lifted
    assert person.fetch_state("--force") == 0  # the person chose to redo it on the fresh files
    assert json.loads((person.dir / STATE).read_text())["applied_rounds"][-1] == "round-3"
    assert person.canary("lift", "--model", MODEL, "--provider", BAD, "--reason", "fixed upstream",
                         "--now", iso(T0 + 3 * HALF_HOUR)) == 0
    assert person.commit("--message", "canary: lift aurora/fp8") == 0
    assert json.loads(world.show("canary-state", STATE))["models"][MODEL][BAD]["suspension"] is None


def test_fetch_state_after_a_pushed_change_overwrites_nothing_of_value(world: World) -> None:
    """A change that was pushed is on the branch: fetching again is always allowed."""
    suspended(world)
    person = world.person
    assert person.fetch_state() == 0
    assert person.canary("lift", "--model", MODEL, "--provider", BAD, "--reason", "fixed",
                         "--now", iso(T0 + 2 * HALF_HOUR)) == 0
    assert person.commit("--message", "canary: lift aurora/fp8") == 0
    assert world.bot.fetch_state() == 0
    world.bot.judge(3)
    assert world.bot.commit() == 0
    assert person.fetch_state() == 0
    assert (person.dir / STATE).read_text() == world.show("canary-state", STATE)
