"""A judge run on an outdated checkout, then `canary announce`: people hear what was committed.

actions/checkout gives a job the commit its run was queued on; a run that waited behind the
previous round, and every re-run, starts from older state than the last push. The judge job
fetches the state branch right before judging, the commit re-applies the round when the branch
moved anyway, and the announcement is made afterwards from the final decisions file. The webhook
is a real HTTP server on 127.0.0.1.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from git_world import HALF_HOUR, PROTECTED_MAIN_HOOK, PROVIDERS, T0, World, git, iso, make_world
from judge_cli_support import MODEL

BAD = PROVIDERS[0]
STATE = "state/canary-state.json"


class Webhook:
    """A chat webhook: records every JSON body posted, answers `status`."""

    def __init__(self) -> None:
        self.posts: list[dict] = []  # type: ignore[type-arg]
        self.status = 200
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                hook.posts.append(json.loads(body))
                self.send_response(hook.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks/secret"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def webhook() -> Iterator[Webhook]:
    hook = Webhook()
    yield hook
    hook.server.shutdown()
    hook.server.server_close()


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, webhook: Webhook) -> World:
    w = make_world(tmp_path, monkeypatch, state_branch="canary-state")
    w.hook(PROTECTED_MAIN_HOOK)
    monkeypatch.setenv("CANARY_WEBHOOK_URL", webhook.url)
    monkeypatch.setattr("canary.integrations.notifications.send.BACKOFF_S", (0.0, 0.0))
    return w


def announce(w: World, run: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """`canary announce` as the workflow's step runs it; returns the step's outputs."""
    output, summary = tmp_path / "output.txt", tmp_path / "summary.md"
    output.write_text("")
    monkeypatch.setenv("GITHUB_OUTPUT", str(output))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert run.canary("announce", str(run.dir / "reports/decisions.json")) == 0  # type: ignore[attr-defined]
    return dict(line.split("=", 1) for line in output.read_text().splitlines())


def test_a_run_queued_behind_the_last_round_judges_the_fresh_state_and_announces_that(
        world: World, webhook: Webhook, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = world.bot
    assert first.fetch_state() == 0
    first.judge(1, {BAD: "fail"})
    assert first.commit() == 0
    queued = world.clone("queued")  # checked out now, while round 2 still runs
    assert queued.fetch_state() == 0
    assert first.fetch_state() == 0
    first.judge(2, {BAD: "fail"})  # suspends BAD
    assert first.commit() == 0
    assert announce(world, first, tmp_path, monkeypatch) == {"undelivered": "false"}
    [post] = webhook.posts
    assert "**suspended**: aurora/fp8" in post["text"]
    # The queued run judges round 3 on its outdated copy (round 1 only): there, BAD reaches two failed
    # rounds and would be suspended again; on the real state it is suspended already.
    round3 = queued.judge(3, {BAD: "fail"})
    assert [d["action"] for d in queued.decisions()["decisions"]] == ["suspend"]
    assert queued.commit("--reapply", str(round3)) == 0
    state = json.loads(world.show("canary-state", STATE))
    assert state["applied_rounds"] == ["round-1", "round-2", "round-3"]
    suspension = state["models"][MODEL][BAD]["suspension"]
    assert suspension["rung"] == 1 and state["models"][MODEL][BAD]["failed_streak"] == 1
    assert queued.decisions()["decisions"] == []  # rewritten by the re-apply: what was committed
    webhook.posts.clear()
    announce(world, queued, tmp_path, monkeypatch)
    assert webhook.posts == []  # no decision, nothing posted: the stale "suspend" never reached anyone


def test_a_rerun_rewrites_the_decisions_from_the_state_and_does_not_post_them_again(
        world: World, webhook: Webhook, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bot = world.bot
    for n in (1, 2):
        assert bot.fetch_state() == 0
        path = bot.judge(n, {BAD: "fail"})
        assert bot.commit() == 0
    committed = bot.decisions()
    rerun = world.clone("rerun")  # a re-run of round 2's judge job, from the same results file
    (rerun.dir / "reports").mkdir()
    (rerun.dir / "reports/decisions.json").write_text('{"round_id": "round-2", "decisions": []}')  # stale
    assert rerun.fetch_state() == 0
    rerun_path = rerun.dir / "reports" / path.name
    rerun_path.write_bytes(path.read_bytes())
    assert rerun.canary("judge", str(rerun_path), "--no-notify") == 0
    doc = rerun.decisions()
    assert doc["already_applied"] is True and doc["decisions"] == committed["decisions"]
    assert doc["now"] == committed["now"] and doc["ignore"] == committed["ignore"]
    tip = world.tip("canary-state")
    assert rerun.commit("--reapply", str(rerun_path)) == 0 and world.tip("canary-state") == tip
    webhook.posts.clear()
    announce(world, rerun, tmp_path, monkeypatch)
    assert webhook.posts == []
    assert "already applied by an earlier run" in (tmp_path / "summary.md").read_text()


def test_an_undelivered_notification_is_recorded_and_committed_to_the_state_branch(
        world: World, webhook: Webhook, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bot = world.bot
    for n in (1, 2):
        assert bot.fetch_state() == 0
        bot.judge(n, {BAD: "fail"})
        assert bot.commit() == 0
    webhook.status = 503
    assert announce(world, bot, tmp_path, monkeypatch) == {"undelivered": "true"}
    assert bot.commit("--message", "canary: record an undelivered notification in the audit log") == 0
    audit = [json.loads(line) for line in world.show("canary-state", "state/audit.jsonl").splitlines()]
    assert [a["action"] for a in audit] == ["suspend", "webhook_failed"]
    assert "secret" not in world.show("canary-state", "state/audit.jsonl")  # the URL is a secret
    assert world.show("main", "exclusions/builtin.yaml") == "# reviewed\n"


def test_a_persons_push_during_the_announcement_keeps_the_undelivered_line_and_the_lift(
        world: World, webhook: Webhook, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The workflow's second commit (`--reapply` its results file) after a `canary lift` landed between the
    round's commit and it: the lift stays, and the webhook_failed line is appended to it."""
    bot = world.bot
    for n in (1, 2):
        assert bot.fetch_state() == 0
        results = bot.judge(n, {BAD: "fail"})
        assert bot.commit("--reapply", str(results)) == 0
    webhook.status = 503
    assert announce(world, bot, tmp_path, monkeypatch) == {"undelivered": "true"}
    person = world.person
    assert person.fetch_state() == 0
    assert person.canary("lift", "--model", MODEL, "--provider", BAD, "--reason", "fixed upstream",
                         "--now", iso(T0 + 2 * HALF_HOUR)) == 0
    assert person.commit("--message", "canary: lift aurora/fp8") == 0
    lifted = world.tip("canary-state")
    assert bot.commit("--message", "canary: record an undelivered notification in the audit log",
                      "--reapply", str(results)) == 0
    audit = [json.loads(line) for line in world.show("canary-state", "state/audit.jsonl").splitlines()]
    assert [a["action"] for a in audit] == ["suspend", "lift", "webhook_failed"]
    state = json.loads(world.show("canary-state", STATE))
    assert state["models"][MODEL][BAD]["suspension"] is None  # the person's lift survives
    assert world.tip("canary-state") != lifted
    assert git_parent(world, world.tip("canary-state")) == lifted  # on top of it, nothing forced
    assert json.loads((bot.dir / "reports/decisions.json").read_text())["round_id"] == "round-2"


def git_parent(w: World, commit: str) -> str:
    return git(w.remote, "rev-parse", f"{commit}^").strip()


def test_main_moving_an_exclusion_file_during_the_announcement_keeps_the_undelivered_line(
        world: World, webhook: Webhook, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29: between the round's commit and the audit line's, a person merged an exclusion
    edit on main. The second commit took it for a re-judge, wrote the branch's files over the
    local audit log and found the round applied: the webhook_failed line was lost."""
    bot = world.bot
    for n in (1, 2):
        assert bot.fetch_state() == 0
        results = bot.judge(n, {BAD: "fail"})
        assert bot.commit("--reapply", str(results)) == 0
    webhook.status = 503
    assert announce(world, bot, tmp_path, monkeypatch) == {"undelivered": "true"}
    world.person_pushes_to_main("exclusions/builtin.yaml", "# reviewed\n# and reviewed again\n", "review")
    round_commit = world.tip("canary-state")
    assert bot.commit("--message", "canary: record an undelivered notification in the audit log",
                      "--reapply", str(results)) == 0
    audit = [json.loads(line) for line in world.show("canary-state", "state/audit.jsonl").splitlines()]
    assert [a["action"] for a in audit] == ["suspend", "webhook_failed"]
    assert git_parent(world, world.tip("canary-state")) == round_commit
