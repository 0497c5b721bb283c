"""`canary issues sync` against a local server speaking GitHub's REST API (real requests over a socket).

Rate limits (403 secondary, 403 primary, 429), 5xx, a 502 after the write was done, pagination,
a lost label and re-runs: never a duplicate issue or comment, never an endless loop.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fake_github import REPO, TOKEN, FakeGitHub, fake_github
from github_issues_support import MODEL, OTHER, TAG, cli, decisions
from summary_data import record_of

from canary.cli.main import main
from canary.integrations.github_issues import client as client_module
from canary.integrations.github_issues import markers
from canary.integrations.github_issues.client import GitHubClient
from canary.integrations.github_issues.plan import STATE_LABELS
from canary.integrations.github_issues.sync import DEFAULT_LABEL, SyncReport
from canary.integrations.github_issues.sync import sync as sync_record
from canary.state.judge_files import save_state
from core.times import parse_time
from judge.suspension.state import JudgeState, ProviderState, Suspension

ISSUE = rf"/repos/{REPO}/issues"
COMMENTS = rf"/repos/{REPO}/issues/\d+/comments"


def sync(doc: dict[str, Any], client: GitHubClient, **options: Any) -> SyncReport:
    """The sync of a decisions.json document, read as `canary issues sync` reads it."""
    return sync_record(record_of(doc), client, **options)


_CLIENTS: list[GitHubClient] = []  # closed when the test's fake GitHub stops (no socket left to the collector)


@pytest.fixture
def gh() -> Any:
    with fake_github() as server:
        yield server
        while _CLIENTS:
            _CLIENTS.pop().close()


def client(gh: FakeGitHub, waits: list[float] | None = None) -> GitHubClient:
    made = GitHubClient(REPO, TOKEN, api_url=gh.url, sleep=(waits.append if waits is not None else lambda _: None))
    _CLIENTS.append(made)
    return made


def test_a_would_suspend_opens_a_labelled_issue_and_a_rerun_changes_nothing(
        gh: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    doc = decisions("r-2", ("would_suspend", TAG), mode="observe")
    code, out = cli(gh, tmp_path, monkeypatch, capsys, doc)
    assert code == 0 and "opened #1 cinder/fp8" in out
    [issue] = gh.open_issues()
    assert {x["name"] for x in issue["labels"]} == {DEFAULT_LABEL, STATE_LABELS["would_suspend"]}
    assert set(gh.labels) == {DEFAULT_LABEL, STATE_LABELS["would_suspend"]}
    assert "https://github.com/acme/chat/actions/runs/4242" in issue["body"] and TOKEN not in out
    posts = len([r for r in gh.requests if r[0] in ("POST", "PATCH")])
    assert cli(gh, tmp_path, monkeypatch, capsys, doc)[0] == 0
    assert len([r for r in gh.requests if r[0] in ("POST", "PATCH")]) == posts and len(gh.issues) == 1


def test_later_decisions_comment_and_a_restore_closes_then_reruns_are_silent(
        gh: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    cli(gh, tmp_path, monkeypatch, capsys, decisions("r-2", ("suspend", TAG)))
    for _ in range(2):
        assert cli(gh, tmp_path, monkeypatch, capsys, decisions("r-3", ("floor_held", TAG)))[0] == 0
        assert cli(gh, tmp_path, monkeypatch, capsys, decisions("r-5", ("restore", TAG)))[0] == 0
    issue = gh.issues[1]
    assert issue["state"] == "closed" and issue["state_reason"] == "completed"
    events = [markers.parse(c["body"])[0]["event"] for c in gh.comments[1]]
    assert events == ["r-3/floor_held", "r-5/restore"]


def test_a_quiet_round_makes_no_request(gh: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    code, out = cli(gh, tmp_path, monkeypatch, capsys, decisions("r-2"))
    assert code == 0 and gh.requests == [] and "nothing to do" in out


def test_canarys_issue_is_found_on_a_later_page(gh: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    gh.page_size = 2
    body = markers.issue_marker(MODEL, TAG, "r-1/suspend") + "\nold"
    gh.add_issue("ours", body, [DEFAULT_LABEL, STATE_LABELS["suspend"]])
    for i in range(5):
        gh.add_issue(f"other {i}", markers.issue_marker(MODEL, f"x{i}/fp8", "r-1/suspend"), [DEFAULT_LABEL])
    assert cli(gh, tmp_path, monkeypatch, capsys, decisions("r-2", ("restore", TAG)))[0] == 0
    assert gh.issues[1]["state"] == "closed" and len(gh.issues) == 6
    assert gh.count("GET", ISSUE) == 4  # 3 pages of open issues, 1 of closed ones updated since the round


def test_a_secondary_rate_limit_is_waited_out_as_retry_after_says(gh: FakeGitHub) -> None:
    gh.fail_next(1, "secondary")
    waits: list[float] = []
    report = sync(decisions("r-2", ("suspend", TAG)), client(gh, waits))
    assert report.ok and waits == [1.0] and len(gh.issues) == 1


def test_a_429_with_retry_after_is_waited_out(gh: FakeGitHub) -> None:
    gh.fail_next(2, "429")
    waits: list[float] = []
    assert sync(decisions("r-2", ("suspend", TAG)), client(gh, waits)).ok and waits == [1.0, 1.0]


def test_a_primary_rate_limit_waits_until_the_reset_time(gh: FakeGitHub) -> None:
    gh.fail_next(1, "primary")
    waits: list[float] = []
    assert sync(decisions("r-2", ("suspend", TAG)), client(gh, waits)).ok
    [wait] = waits
    assert 1.0 <= wait <= 3.0


def test_a_rate_limit_longer_than_the_budget_stops_and_reports_what_was_not_done(gh: FakeGitHub) -> None:
    doc = decisions("r-2", ("suspend", TAG), ("suspend", OTHER))
    assert sync(doc, client(gh)).ok is True    # labels exist now; the next run finds them
    gh.issues.clear()
    gh.fail_next(50, "429-long")
    waits: list[float] = []
    report = sync(doc, client(gh, waits))
    assert not report.ok and waits == [] and gh.issues == {}
    assert any("could not read the incident issues" in line for line in report.failed)
    gh.failures.clear()
    assert sync(doc, client(gh)).ok and len(gh.issues) == 2   # the next run catches up


def test_a_rate_limit_midway_leaves_the_rest_reported_undone(gh: FakeGitHub) -> None:
    doc = decisions("r-2", ("suspend", TAG), ("suspend", OTHER))
    c = client(gh)
    real_create = c.create_issue
    calls: list[int] = []

    def create_then_limit(*args: Any, **kw: Any) -> dict[str, Any]:
        calls.append(1)
        if len(calls) == 2:
            gh.fail_next(1, "429-long")
        return real_create(*args, **kw)

    c.create_issue = create_then_limit  # type: ignore[method-assign]
    report = sync(doc, c)
    assert len(gh.issues) == 1 and report.failed == [f"open an issue for {OTHER} ({MODEL}): not done "
                                                     "(HTTP 429: rate limited: GitHub asks for 3600 s more, "
                                                     "over this run's budget)"]


def test_5xx_on_a_read_is_retried_a_bounded_number_of_times(gh: FakeGitHub) -> None:
    gh.fail_next(2, "502")
    waits: list[float] = []
    assert sync(decisions("r-2", ("suspend", TAG)), client(gh, waits)).ok and waits == [1.0, 2.0]
    gh.requests.clear()
    gh.fail_next(100, "502")
    report = sync(decisions("r-3", ("restore", TAG)), client(gh))
    assert not report.ok and len(gh.requests) == client_module.ATTEMPTS


def test_a_502_after_the_issue_was_created_does_not_create_it_twice(gh: FakeGitHub) -> None:
    sync(decisions("r-1", ("floor_held", TAG)), client(gh))   # labels exist, nothing else
    gh.requests.clear()
    gh.failures[:] = []
    c = client(gh)
    real = c._http.request

    def fail_the_create(method: str, url: str, **kw: Any) -> Any:
        if method == "POST" and url.endswith("/issues"):
            gh.fail_next(1, "502-after")
        return real(method, url, **kw)

    c._http.request = fail_the_create  # type: ignore[method-assign]
    assert sync(decisions("r-2", ("suspend", TAG)), c).ok
    assert len(gh.issues) == 1 and gh.count("POST", ISSUE) == 1


def test_a_502_after_the_comment_was_written_does_not_write_it_twice(gh: FakeGitHub) -> None:
    assert sync(decisions("r-2", ("suspend", TAG)), client(gh)).ok
    c = client(gh)
    real = c._http.request

    def fail_the_comment(method: str, url: str, **kw: Any) -> Any:
        if method == "POST" and url.endswith("/comments"):
            gh.fail_next(1, "502-after")
        return real(method, url, **kw)

    c._http.request = fail_the_comment  # type: ignore[method-assign]
    assert sync(decisions("r-3", ("floor_held", TAG)), c).ok
    assert len(gh.comments[1]) == 1


def test_a_permission_error_is_reported_not_retried(
        gh: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = cli(gh, tmp_path, monkeypatch, capsys, decisions("r-2", ("suspend", TAG)), token="wrong-token")
    assert code == 1 and "HTTP 401: Bad credentials" in out and "wrong-token" not in out
    assert len(gh.requests) == 1


def test_a_dry_run_reads_and_plans_but_writes_nothing(
        gh: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = cli(gh, tmp_path, monkeypatch, capsys, decisions("r-2", ("suspend", TAG)), "--dry-run")
    assert code == 0 and f"would open an issue for {TAG}" in out
    assert all(method == "GET" for method, _ in gh.requests)


def test_reply_excerpts_from_the_results_files_go_into_a_new_issue(
        gh: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "results.json"
    results.write_text(json.dumps({
        "schema_version": 1, "round_id": "r-2", "started_at": "2026-11-30T10:00:00Z", "complete": True,
        "models": {MODEL: {"providers": [TAG]}}, "cases": [
            {"model": MODEL, "provider": TAG, "contract": "language", "outcome": "fail", "reason": "wrong language",
             "attempts": [{"outcome": "fail", "reason": "wrong language", "excerpt": "_,복도는 <b>`x`</b>"}]},
            {"model": MODEL, "provider": TAG, "contract": "refusal", "outcome": "pass", "reason": "ok",
             "attempts": [{"outcome": "pass", "reason": "ok", "excerpt": "fine reply"}]}]}))
    assert cli(gh, tmp_path, monkeypatch, capsys, decisions("r-2", ("suspend", TAG)), "--results", str(results))[0] == 0
    body = gh.issues[1]["body"]
    assert "```text\n_,복도는 <b>`x`</b>\n```" in body and "fine reply" not in body


def test_a_results_file_the_reader_refuses_only_loses_its_excerpts(
        gh: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "results.json"
    results.write_text(json.dumps({"schema_version": 3, "cases": []}))
    code, output = cli(gh, tmp_path, monkeypatch, capsys, decisions("r-2", ("suspend", TAG)), "--results", str(results))
    assert code == 0 and len(gh.issues) == 1 and "```text" not in gh.issues[1]["body"]
    assert "schema_version: expected one of 1, 2" in output


def test_missing_token_or_repository_is_a_clear_refusal(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "d.json"
    path.write_text(json.dumps(decisions("r-2", ("suspend", TAG))))
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    assert main(["issues", "sync", "--decisions", str(path)]) == 2
    assert "--repo OWNER/NAME" in capsys.readouterr().err
    assert main(["issues", "sync", "--decisions", str(path), "--repo", REPO]) == 2
    assert "GITHUB_TOKEN is not set" in capsys.readouterr().err


def test_after_a_switch_to_enforce_the_title_follows_the_label(
        gh: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    cli(gh, tmp_path, monkeypatch, capsys, decisions("r-1", ("would_suspend", TAG), mode="observe"))
    assert gh.issues[1]["title"] == f"👀 {TAG} would be suspended (observe mode) ({MODEL})"
    assert cli(gh, tmp_path, monkeypatch, capsys, decisions("r-4", ("suspend", TAG)))[0] == 0
    assert gh.issues[1]["title"] == f"⛔ {TAG} suspended ({MODEL})"
    assert {x["name"] for x in gh.issues[1]["labels"]} == {DEFAULT_LABEL, STATE_LABELS["suspend"]}


def test_a_lift_closes_its_issue_naming_the_lift_who_and_why(
        gh: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A lift is no round's decision: `canary lift` writes it to the audit log, and the next
    `issues sync --state` tells it from there (before: "the decision that ended it did not reach GitHub")."""
    state_path, audit_path = tmp_path / "state.json", tmp_path / "audit.jsonl"
    since, until = parse_time("2026-11-29T22:00:00Z", "t"), parse_time("2026-11-30T22:00:00Z", "t")
    save_state(state_path, JudgeState(models={MODEL: {TAG: ProviderState(
        suspension=Suspension(since, until, 1, "enforce", "2 failed rounds"))}}))
    cli(gh, tmp_path, monkeypatch, capsys, decisions("r-1", ("suspend", TAG)))
    assert main(["lift", "--model", MODEL, "--provider", TAG, "--reason", "vendor fixed the <b>tokenizer</b>",
                 "--by", "alice", "--state", str(state_path), "--audit", str(audit_path),
                 "--now", "2026-11-29T22:20:00Z"]) == 0
    for _ in range(2):   # the re-run writes nothing more
        code, out = cli(gh, tmp_path, monkeypatch, capsys, decisions("r-2"), "--state", str(state_path),
                        "--audit", str(audit_path))
        assert code == 0, out
    [comment] = gh.comments[1]
    said = comment["body"].splitlines()[1]
    assert said.startswith("🔓 **lifted by hand** by alice at 2026") and "22\\:20\\:00Z" in said
    assert said.endswith(": vendor fixed the \\<b\\>tokenizer\\</b\\> (rung 1).")
    assert markers.parse(comment["body"])[0]["event"] == "2026-11-29T22:20:00Z/lift"
    assert gh.issues[1]["state"] == "closed"


def test_with_the_state_a_sync_that_was_cut_short_heals_at_the_next_round(
        gh: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    since, until = parse_time("2026-11-29T22:00:00Z", "t"), parse_time("2026-11-30T22:00:00Z", "t")
    state_path = tmp_path / "state.json"
    state = JudgeState(models={MODEL: {TAG: ProviderState(suspension=Suspension(since, until, 1, "enforce", "why"))}})
    save_state(state_path, state)
    gone = gh.add_issue("stale", markers.issue_marker(MODEL, OTHER, "r-1/suspend"), [DEFAULT_LABEL])
    for _ in range(2):
        code, out = cli(gh, tmp_path, monkeypatch, capsys, decisions("r-9"), "--state", str(state_path))
        assert code == 0
    opened = [i for i in gh.issues.values() if i["number"] != gone["number"]]
    assert len(opened) == 1 and opened[0]["state"] == "open" and TAG in opened[0]["title"]
    assert gh.issues[gone["number"]]["state"] == "closed" and len(gh.comments[gone["number"]]) == 1


QUIET_STATE_SINCE = "2026-11-29T20:00:00Z"


def closed_incidents(gh: FakeGitHub, n: int) -> None:
    """`n` incidents of earlier months, closed long ago, each with its comments."""
    old = parse_time("2026-10-01T12:00:00Z", "t")
    for i in range(n):
        issue = gh.add_issue(f"old {i}", markers.issue_marker(MODEL, f"h{i}/fp8", f"r-old{i}/suspend"),
                             [DEFAULT_LABEL], state="closed", updated_at=old)
        gh.add_comment(issue["number"], markers.comment_marker(MODEL, f"h{i}/fp8", f"r-old{i}/restore"),
                       updated_at=old)


@pytest.mark.parametrize("closed", [10, 120])
def test_a_quiet_round_with_the_state_reads_only_what_it_can_change_however_many_incidents_were_closed(
        gh: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        closed: int) -> None:
    """GITHUB_TOKEN has 1,000 requests an hour: a year of closed incidents must not cost one
    request each per round (the open issue of the active suspension is the one read)."""
    since, until = parse_time(QUIET_STATE_SINCE, "t"), parse_time("2026-11-30T20:00:00Z", "t")
    state_path = tmp_path / "state.json"
    save_state(state_path, JudgeState(models={MODEL: {TAG: ProviderState(
        suspension=Suspension(since, until, 1, "enforce", "why"))}}))
    closed_incidents(gh, closed)
    assert cli(gh, tmp_path, monkeypatch, capsys, decisions("r-1", ("suspend", TAG)))[0] == 0
    gh.requests.clear()
    code, out = cli(gh, tmp_path, monkeypatch, capsys, decisions("r-2"), "--state", str(state_path))
    assert code == 0, out
    assert gh.count("GET", COMMENTS) == 1 and gh.count("GET", ISSUE) == 2  # open list, closed-since list
    assert [r for r in gh.requests if r[0] != "GET"] == []


def test_a_rerun_still_sees_the_events_it_wrote_on_an_issue_it_closed(
        gh: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    closed_incidents(gh, 3)
    cli(gh, tmp_path, monkeypatch, capsys, decisions("r-2", ("suspend", TAG)))
    restore = decisions("r-3", ("restore", TAG))
    assert cli(gh, tmp_path, monkeypatch, capsys, restore)[0] == 0
    writes = len([r for r in gh.requests if r[0] in ("POST", "PATCH")])
    assert cli(gh, tmp_path, monkeypatch, capsys, restore)[0] == 0  # the issue is closed now: still found
    assert len([r for r in gh.requests if r[0] in ("POST", "PATCH")]) == writes


def test_issues_turned_off_is_nothing_to_sync_with_a_warning(
        gh: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A fork has Issues off by default: GitHub answers 410 "Issues are disabled for this repo"."""
    gh.issues_disabled = True
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    code, out = cli(gh, tmp_path, monkeypatch, capsys, decisions("r-2", ("suspend", TAG)))
    assert code == 0 and "Issues are turned off in this repository" in out and "Issues are disabled" in out
    assert "::warning title=canary issues::" in out and "Settings > General > Features > Issues" in out
    assert "NOT DONE" not in out and gh.issues == {}
