"""A marker is a hash anyone can compute: `canary issues sync` trusts one only on an issue or a
comment its own login wrote (GITHUB_TOKEN's github-actions[bot]) and on an issue with its label
(local GitHub API over a socket)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fake_github import BOT, FakeGitHub, fake_github
from github_issues_support import MODEL, TAG, cli, decisions

from canary.integrations.github_issues import markers
from canary.integrations.github_issues.plan import STATE_LABELS
from canary.integrations.github_issues.sync import DEFAULT_LABEL

OUTSIDER = "mallory"


@pytest.fixture
def gh() -> Any:
    with fake_github() as server:
        yield server


def _labels(issue: dict[str, Any]) -> set[str]:
    return {x["name"] for x in issue["labels"]}


@pytest.mark.parametrize("labels", [[], [DEFAULT_LABEL, STATE_LABELS["suspend"]]])
def test_an_outsiders_issue_with_a_valid_marker_is_never_adopted(
        gh: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        labels: list[str]) -> None:
    """Unlabelled (anyone may file it), or labelled (a triager's slip, another workflow): not canary's."""
    forged = gh.add_issue("Totally legit", markers.issue_marker(MODEL, TAG, "r-1/would_suspend") + "\nmy text",
                          labels, author=OUTSIDER)
    for round_id in ("r-2", "r-3"):
        code, out = cli(gh, tmp_path, monkeypatch, capsys, decisions(round_id, ("suspend", TAG)))
        assert code == 0, out
    mine = gh.issues[forged["number"]]
    assert mine["title"] == "Totally legit" and _labels(mine) == set(labels) and gh.comments[mine["number"]] == []
    [ours] = [i for i in gh.open_issues() if i["user"]["login"] != OUTSIDER]
    assert TAG in ours["title"] and gh.comments[ours["number"]] != []   # r-3 commented on canary's own issue


def test_an_outsiders_comment_carrying_the_lift_event_does_not_stop_the_lift(
        gh: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(gh, tmp_path, monkeypatch, capsys, decisions("r-2", ("suspend", TAG)))[0] == 0
    gh.add_comment(1, markers.comment_marker(MODEL, TAG, "r-3/lift"), author=OUTSIDER)
    code, out = cli(gh, tmp_path, monkeypatch, capsys, decisions("r-3", ("lift", TAG)))
    assert code == 0 and "closed #1" in out
    assert gh.issues[1]["state"] == "closed"
    assert [c["user"]["login"] for c in gh.comments[1]] == [OUTSIDER, BOT]


def test_a_token_that_writes_as_another_login_is_reported_not_reopened_silently_every_round(
        gh: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = cli(gh, tmp_path, monkeypatch, capsys, decisions("r-2", ("suspend", TAG)), "--author", "canary-bot")
    assert code == 1 and "another login wrote it, not canary-bot" in out and "--author" in out
