"""`canary issues sync` leaves a silenced endpoint's issue alone (local GitHub API over a socket),
and the next round after the silence ends brings it up to date through `--state`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fake_github import FakeGitHub, fake_github
from github_issues_support import MODEL, OTHER, TAG, cli, decisions

from canary.integrations.github_issues import markers
from canary.integrations.github_issues.plan import STATE_LABELS
from canary.integrations.github_issues.sync import DEFAULT_LABEL
from canary.state.judge_files import save_state
from canary.state.silences import add_silence
from core.times import parse_time
from judge.suspension.silences import Silence
from judge.suspension.state import JudgeState, ProviderState, Suspension

ROUND_AT = parse_time("2026-11-29T22:30:00Z", "now")   # the `now` of github_issues_support.decisions


@pytest.fixture
def gh() -> Any:
    with fake_github() as server:
        yield server


def _silences(tmp_path: Path, *silences: Silence) -> Path:
    path = tmp_path / "silences.yaml"
    text = ""
    for s in silences:
        text = add_silence(text, str(path), s)
    path.write_text(text, encoding="utf-8")
    return path


def _writes(gh: FakeGitHub) -> list[tuple[str, str]]:
    return [r for r in gh.requests if r[0] in ("POST", "PATCH")]


def test_a_silenced_endpoint_opens_no_issue_and_the_others_still_do(
        gh: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    until = ROUND_AT + (ROUND_AT - ROUND_AT.replace(hour=0))
    path = _silences(tmp_path, Silence(MODEL, TAG, until, "known: vendor ticket", "alice", ROUND_AT))
    doc = decisions("r-2", ("suspend", TAG), ("suspend", OTHER))
    code, out = cli(gh, tmp_path, monkeypatch, capsys, doc, "--silences", str(path))
    assert code == 0 and "silenced: suspend of cinder/fp8" in out and "by alice" in out
    [issue] = gh.open_issues()
    assert OTHER in issue["title"] and TAG not in issue["title"]


def test_only_silenced_decisions_make_no_request_at_all(
        gh: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    path = _silences(tmp_path, Silence(MODEL, None, ROUND_AT.replace(hour=23), "model-wide", "bob", ROUND_AT))
    code, _ = cli(gh, tmp_path, monkeypatch, capsys, decisions("r-2", ("suspend", TAG)), "--silences", str(path))
    assert code == 0 and gh.requests == []


def test_healing_leaves_a_silenced_issue_open_until_the_silence_ends(
        gh: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    gh.add_issue("ours", markers.issue_marker(MODEL, TAG, "r-1/suspend"), [DEFAULT_LABEL])
    state = tmp_path / "state.json"
    save_state(state, JudgeState(models={MODEL: {TAG: ProviderState()}}))   # no longer suspended
    silence = Silence(MODEL, TAG, ROUND_AT.replace(hour=23), "watching it", "alice", ROUND_AT)
    path = _silences(tmp_path, silence)
    code, _ = cli(gh, tmp_path, monkeypatch, capsys, decisions("r-2"), "--state", str(state), "--silences", str(path))
    assert code == 0 and gh.issues[1]["state"] == "open" and _writes(gh) == []
    path.write_text("", encoding="utf-8")   # the silence is over (or expired): the next round heals
    code, _ = cli(gh, tmp_path, monkeypatch, capsys, decisions("r-3"), "--state", str(state), "--silences", str(path))
    assert code == 0 and gh.issues[1]["state"] == "closed"


def test_a_suspension_found_in_the_state_opens_its_issue_once_the_silence_is_over(
        gh: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    since, until = ROUND_AT.replace(hour=20), ROUND_AT.replace(day=30)
    state = tmp_path / "state.json"
    suspended = ProviderState(suspension=Suspension(since=since, until=until, rung=1, reason="2 failed rounds",
                                                    mode="enforce"))
    save_state(state, JudgeState(models={MODEL: {TAG: suspended}}))
    path = _silences(tmp_path, Silence(MODEL, TAG, ROUND_AT.replace(hour=23), "r", "a", ROUND_AT))
    code, _ = cli(gh, tmp_path, monkeypatch, capsys, decisions("r-2"), "--state", str(state), "--silences", str(path))
    assert code == 0
    assert gh.issues == {}
    after = decisions("r-3") | {"now": "2026-11-29T23:30:00Z"}
    assert cli(gh, tmp_path, monkeypatch, capsys, after, "--state", str(state), "--silences", str(path))[0] == 0
    [issue] = gh.open_issues()
    assert TAG in issue["title"]


def test_an_issue_still_open_when_its_silence_ends_is_healed_at_the_next_sync(
        gh: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Observed, then silenced; the switch to enforce came during the silence (its decision muted):
    once the silence is over, the next sync moves the issue's label and title to the state's."""
    cli(gh, tmp_path, monkeypatch, capsys, decisions("r-1", ("would_suspend", TAG), mode="observe"))
    path = _silences(tmp_path, Silence(MODEL, TAG, ROUND_AT.replace(hour=23), "vendor ticket", "alice", ROUND_AT))
    state = tmp_path / "state.json"
    save_state(state, JudgeState(models={MODEL: {TAG: ProviderState(suspension=Suspension(
        since=ROUND_AT.replace(hour=20), until=ROUND_AT.replace(day=30), rung=1, reason="2 failed rounds",
        mode="enforce"))}}))
    writes = len(_writes(gh))
    switched = decisions("r-2", ("suspend", TAG))
    assert cli(gh, tmp_path, monkeypatch, capsys, switched, "--state", str(state), "--silences", str(path))[0] == 0
    assert gh.issues[1]["title"].startswith("👀") and len(_writes(gh)) == writes   # silenced: left alone
    after = decisions("r-3") | {"now": "2026-11-29T23:30:00Z"}
    assert cli(gh, tmp_path, monkeypatch, capsys, after, "--state", str(state), "--silences", str(path))[0] == 0
    assert gh.issues[1]["title"] == f"⛔ {TAG} suspended ({MODEL})" and gh.issues[1]["state"] == "open"
    assert {x["name"] for x in gh.issues[1]["labels"]} == {DEFAULT_LABEL, STATE_LABELS["suspend"]}
