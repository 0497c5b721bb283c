"""Commit-back to the checked-out branch (paths.state_branch empty: everything on main, for a token
that may push there), against a real bare repository, with a person pushing in between.

The default layout, the judge's files on their own branch, is tested in test_commit_back_state_branch.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from git_world import HALF_HOUR, INCIDENTS_HEADER, PROVIDERS, T0, Clone, git, iso, remote_file
from judge_cli_support import MODEL
from summary_data import record_of

from canary.state.commit_back import commit_message
from judge.suspension.decisions import DecisionsError

BAD = PROVIDERS[0]
HAND_EDIT = f'"{MODEL}":\n  - provider: cirrus/fp8  # by hand\n    reason: filters\n    added_at: 2026-11-29\n'


def person_pushes(person: Clone, *commands: tuple[str, ...]) -> None:
    git(person.dir, "pull", "--rebase", "origin", "main")
    for command in commands:
        assert person.canary(*command) == 0
    git(person.dir, "add", "-A", "--force", "exclusions", "state")
    git(person.dir, "commit", "-m", "person: manual change")
    git(person.dir, "push", "origin", "HEAD:main")


def lifted_while_round_3_is_judged(bot: Clone, person: Clone, reason: str, *more: tuple[str, ...]) -> Path:
    """Rounds 1 and 2 suspend BAD and are pushed; round 3 is judged locally while a person lifts BAD
    (with `reason`) and pushes that, and `more` commands, first. Round 3's results file."""
    bot.judge(1, {BAD: "fail"})
    bot.judge(2, {BAD: "fail"})
    assert bot.commit() == 0
    round3 = bot.judge(3, {BAD: "fail"})
    person_pushes(person, ("lift", "--model", MODEL, "--provider", BAD, "--reason", reason,
                           "--now", iso(T0 + 2 * HALF_HOUR)), *more)
    return round3


def test_a_persons_incident_pushed_during_a_round_survives_the_commit_back(
        main_world: tuple[Path, Clone, Clone]) -> None:
    remote, bot, person = main_world
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


def test_when_its_own_files_conflict_it_resets_and_reapplies_the_round(main_world: tuple[Path, Clone, Clone]) -> None:
    remote, bot, person = main_world
    # Meanwhile a person lifts the suspension (state + audit change) and adds an incident.
    round3 = lifted_while_round_3_is_judged(
        bot, person, "fixed upstream",
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


def test_a_conflict_without_reapply_stops_and_forces_nothing(main_world: tuple[Path, Clone, Clone]) -> None:
    remote, bot, person = main_world
    lifted_while_round_3_is_judged(bot, person, "fixed")
    before = git(remote, "rev-parse", "main")
    assert bot.commit() == 1
    assert git(remote, "rev-parse", "main") == before


def test_a_refused_reapply_pushes_nothing_and_says_why(main_world: tuple[Path, Clone, Clone],
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    remote, bot, person = main_world
    round3 = lifted_while_round_3_is_judged(bot, person, "fixed")
    round3.write_text("{ not a results file")  # the judge refuses to re-apply the round from it
    before = git(remote, "rev-parse", "main")
    assert bot.commit("--reapply", str(round3)) == 1
    assert git(remote, "rev-parse", "main") == before
    assert "canary judge refused to re-apply the round" in capsys.readouterr().err


def test_nothing_to_commit_is_fine(main_world: tuple[Path, Clone, Clone], capsys: pytest.CaptureFixture[str]) -> None:
    _, bot, _ = main_world
    assert bot.commit() == 0
    assert "nothing to commit" in capsys.readouterr().out


def test_other_uncommitted_changes_are_never_reset(main_world: tuple[Path, Clone, Clone]) -> None:
    _, bot, _ = main_world
    bot.judge(1, {BAD: "fail"})
    (bot.dir / "exclusions/builtin.yaml").write_text("# a local, unfinished edit\n")
    assert bot.commit() == 1
    assert (bot.dir / "exclusions/builtin.yaml").read_text() == "# a local, unfinished edit\n"


HOSTILE = ['a/b"; rm -rf ~; echo "', "x\ny: injected", "$(reboot)", "`id`", "a|b", "tag\x1b[31m"]


@pytest.mark.parametrize("tag", HOSTILE, ids=lambda t: ascii(t)[:10])
def test_commit_messages_never_contain_raw_hostile_tags(tag: str) -> None:
    # The record holds whatever strings its file held: ids and tags are checked again here.
    doc = record_of({"round_id": "r\nSigned-off-by: evil", "mode": "enforce", "decisions": [
        {"model": tag, "provider": tag, "action": "suspend", "rule": "failed_streak", "reason": "`id`", "rung": 1}]})
    message = commit_message(doc)
    assert tag not in message and "evil" not in message
    assert all(ch not in message for ch in '`$;|"\x1b')
    assert message.splitlines()[0] == "canary: round <invalid round id> (enforce): 1 decision(s)"
    assert message.splitlines()[2] == "- suspend <invalid tag> (<invalid tag>) rung 1"


def test_a_hostile_mode_never_reaches_a_commit_message() -> None:
    with pytest.raises(DecisionsError, match="mode: expected one of observe, enforce"):  # the mode is typed
        record_of({"mode": "enforce; ls", "decisions": []})


@pytest.mark.parametrize("field", [{"action": "suspend; ls"}, {"rung": "1;"}, {"until": "soon`x`"}],
                         ids=["action", "rung", "until"])
def test_a_hostile_action_rung_or_time_never_reaches_a_commit_message(field: dict[str, str]) -> None:
    with pytest.raises(DecisionsError, match=next(iter(field))):
        record_of({"decisions": [{"model": "m/x", "provider": "a/fp8", "action": "suspend",
                                  "rule": "failed_streak", "reason": "r", **field}]})
