"""Issue 29's DONE-WHEN, emulated as GitHub runs it: the workflow's own judge and issues jobs, the
real `canary` in them, a bare remote holding a fresh copy of this checkout, the fake GitHub API
(tests/canary/fake_github.py) and a notification receiver on a real socket.

The operator observes for three rounds while one host fails every round, then switches to
enforce (the documented one-off *Run workflow* with `mode: enforce`, or an edit of canary.yaml
on main); one more failed round suspends the host that was failing, with one notification, and
its incident issue is relabelled, never closed and reopened. Before issue 29 the switch ended
every observe record (one "expired (mode_switch)" notice each, their issues closed) and reset
the streaks, so the enforce round suspended nothing.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "canary"))  # the fake GitHub, the receivers

from fake_github import REPO, TOKEN, FakeGitHub, fake_github
from github_runner import Contexts, JobRun, Run, real_canary, run_job
from judge_cli_support import HALF_HOUR, MODEL, PROVIDERS, T0, iso, results
from notify_receivers import Receiver, receiving
from workflow_support import JOBS, probe_job

# Five rounds of six real `canary` commands each (a few seconds apiece on a busy runner).
pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

ROOT = Path(__file__).resolve().parents[2]
BAD = PROVIDERS[0]
STATE = "state/canary-state.json"


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


@dataclass
class Repository:
    """The bare remote (GitHub's copy of the repository), seeded from this checkout's tracked files."""

    root: Path
    remote: Path
    github: FakeGitHub
    hook: Receiver
    now: datetime = T0
    notifications: list[list[Any]] = field(default_factory=list)   # the messages received, per round

    def checkout(self, step: dict[str, Any], workspace: Path, contexts: Contexts) -> str:
        """actions/checkout: the branch named by `ref` (the run's branch without it), shallow."""
        ref = str(step["with"].get("ref") or "refs/heads/main").removeprefix("refs/heads/")
        target = workspace / str(step["with"].get("path", "."))
        done = subprocess.run(["git", "clone", "--quiet", "--depth", "1", "--branch", ref,
                               f"file://{self.remote}", str(target)], capture_output=True, check=False)
        return "success" if done.returncode == 0 else "failure"

    def state(self) -> dict[str, Any]:
        return dict(json.loads(git(self.remote, "show", f"canary-state:{STATE}")))

    def push_to_main(self, path: str, edit: Any) -> None:
        """A person's merged pull request."""
        person = self.root / "person"
        if not person.exists():
            git(self.root, "clone", "--quiet", f"file://{self.remote}", "person")
        git(person, "pull", "--quiet", "origin", "main")
        (person / path).write_text(edit((person / path).read_text()))
        git(person, "-c", "user.name=Alice", "-c", "user.email=alice@example.invalid", "commit", "-qam", "edit")
        git(person, "push", "--quiet", "origin", "HEAD:main")


@pytest.fixture
def repository(tmp_path: Path) -> Iterator[Repository]:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "--quiet", "--bare", "-b", "main", str(remote))
    seed = tmp_path / "seed"
    git(tmp_path, "clone", "--quiet", f"file://{remote}", "seed")
    for name in git(ROOT, "ls-files", "-z").split("\0"):
        source = ROOT / name
        if name and source.is_file():  # as on disk: what this checkout would push
            (seed / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, seed / name)
    git(seed, "add", "-A")
    git(seed, "-c", "user.name=seed", "-c", "user.email=seed@example.invalid", "commit", "-qm", "a fresh clone")
    git(seed, "push", "--quiet", "origin", "HEAD:main")
    with fake_github() as github, receiving() as hook:
        repo = Repository(tmp_path, remote, github, hook)
        github.clock = lambda: repo.now
        yield repo


def scheduled_round(repo: Repository, n: int, spec: dict[str, Any], *, mode: str = "") -> tuple[JobRun, JobRun]:
    """Round `n` as one workflow run: the probe job's results, then the judge and issues jobs as written.
    `mode` is the *Run workflow* input (empty: a scheduled run, which has no inputs)."""
    repo.now = T0 + n * HALF_HOUR
    work = repo.root / f"run-{n}"
    run = Run()
    round_id = f"round-{n}"
    probe_job(run, work, MODEL, round_id, results(spec, at=repo.now - HALF_HOUR / 3, round_id=round_id))
    values = {"inputs": {"mode": mode} if mode else {},
              "secrets": {"CANARY_NOTIFY_URLS": f"json://127.0.0.1:{repo.hook.port}/canary"},
              "github": {"ref": "refs/heads/main", "token": TOKEN},
              "needs": {"plan": {"result": "success", "outputs": {"models": MODEL, "state_branch": "canary-state"}}}}
    env = {"CANARY_TEST_NOW": iso(repo.now), "GITHUB_API_URL": repo.github.url, "GITHUB_REPOSITORY": REPO}
    before = len(repo.hook.requests)
    judge = run_job(JOBS["judge"], work / "judge", values, bin_dir=work / "bin", run=run, extra_env=env,
                    actions={"actions/checkout": repo.checkout}, canary=real_canary())
    assert judge.result == "success", judge.ran
    issues = run_job(JOBS["issues"], work / "issues", {**values, "needs": {"judge": judge.needs()}},
                     bin_dir=work / "bin", run=run, extra_env=env,
                     actions={"actions/checkout": repo.checkout}, canary=real_canary())
    assert issues.result == "success", issues.ran
    repo.notifications.append([r.json() for r in repo.hook.requests[before:]])
    return judge, issues


def decisions_of(job: JobRun, repo: Repository, n: int) -> list[dict[str, Any]]:
    doc = json.loads((repo.root / f"run-{n}" / "judge" / "reports/decisions.json").read_text())
    return [d for d in doc["decisions"] if d["provider"] == BAD]


def only_issue(repo: Repository) -> dict[str, Any]:
    [issue] = repo.github.issues.values()  # one issue for the endpoint, ever: no close and reopen
    return issue


@pytest.mark.parametrize("switch", ["run workflow with mode enforce", "canary.yaml edited to enforce"])
def test_observe_three_rounds_then_switch_and_one_more_failed_round_suspends_the_failing_host(repository, switch):
    repo = repository
    failing = {BAD: "fail"}
    observed = [scheduled_round(repo, n, failing) for n in (1, 2, 3)]
    assert [d["action"] for n, (judge, _) in enumerate(observed, 1) for d in decisions_of(judge, repo, n)] == [
        "would_suspend"]
    issue = only_issue(repo)
    assert issue["state"] == "open" and {"name": "canary: would suspend"} in issue["labels"]
    record = repo.state()["models"][MODEL][BAD]
    assert record["suspension"]["mode"] == "observe" and record["failed_streak"] == 1

    if switch.startswith("canary.yaml"):
        repo.push_to_main("canary.yaml", lambda text: text.replace("\nmode: observe\n", "\nmode: enforce\n", 1))
        judge, _ = scheduled_round(repo, 4, failing)
    else:
        judge, _ = scheduled_round(repo, 4, failing, mode="enforce")

    [suspended] = decisions_of(judge, repo, 4)
    assert (suspended["action"], suspended["rule"]) == ("suspend", "mode_switch")
    assert repo.state()["models"][MODEL][BAD]["suspension"]["mode"] == "enforce"
    [message] = repo.notifications[-1]  # one notification: the suspension, no "expired" notice
    text = json.dumps(message)
    assert "suspend" in text and BAD in text and "expired" not in text
    issue = only_issue(repo)
    assert issue["state"] == "open" and {"name": "canary: suspended"} in issue["labels"]
    assert {"name": "canary: would suspend"} not in issue["labels"] and issue["title"].startswith(f"⛔ {BAD} suspended")

    if switch.startswith("canary.yaml"):
        return  # enforcing from then on: the rounds after it are the rules' tests (tests/judge/suspension/)
    judge, _ = scheduled_round(repo, 5, failing)  # the next scheduled round, in canary.yaml's mode again
    assert decisions_of(judge, repo, 5) == [] and repo.notifications[-1] == []
    assert repo.state()["models"][MODEL][BAD]["suspension"]["mode"] == "enforce"
    assert repo.state()["mode"] == "observe"  # the override was that round's only
    assert only_issue(repo)["state"] == "open"
