"""`canary issues sync --decisions FILE [--repo OWNER/NAME]`: incidents as GitHub issues
(docs/notifications.md, Incidents as GitHub issues). Idempotent: re-running the same decisions writes
nothing new. Exit codes: 0 everything done (or nothing to do, also with Issues turned off), 1 some
operations were not done (listed; the next run does what is still missing), 2 it could not start.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import click

from canary.cli.commands._options import PATH, Invocation, common, pass_invocation
from canary.integrations.github_issues import excerpts
from canary.integrations.github_issues.client import BOT_LOGIN, GitHubClient
from canary.integrations.github_issues.sync import DEFAULT_LABEL, Standing, suspended_in, sync
from canary.state import audit
from canary.state.judge_files import load_state
from canary.state.results_files import read_decisions
from canary.state.silences import silences_or_none
from core.results import ResultsError, RoundResults
from core.results_read import read_results
from core.store import StoreError, read_json
from core.untrusted import clean

_REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")


@click.group("issues", short_help="incidents as GitHub issues (open, comment, close)")
def issues() -> None:
    """Incidents as GitHub issues: one per suspended (or would-be suspended) endpoint, kept up to date."""


@issues.command("sync", help="bring the incident issues up to date with a round's decisions")
@click.option("--decisions", "decisions_path", type=PATH, required=True, metavar="PATH",
              help="the round's decisions.json")
@click.option("--repo", default=None, help="OWNER/NAME (default: $GITHUB_REPOSITORY)")
@click.option("--results", is_flag=True, expose_value=False,
              help="marks the RESULTS.json argument (optional): the round's results file, for reply "
                   "excerpts in new issues")
@click.argument("results_path", required=False, type=PATH, metavar="[RESULTS.json]")
@click.option("--label", default=DEFAULT_LABEL, help=f"the label that finds canary's issues (default: {DEFAULT_LABEL})")
@click.option("--run-url", default=None, help="link of the round (default: this workflow run)")
@click.option("--state", "state_path", type=PATH, default=None, metavar="PATH",
              help="the judge's state after the round: heal issues a cut-short earlier sync left behind "
                   "(with --audit's log: a closed issue tells the lift or the decision that ended it)")
@click.option("--author", default=BOT_LOGIN, help=f"the login the token writes as (default: {BOT_LOGIN}, "
                                                  "GITHUB_TOKEN's); only its issues and comments are canary's")
@click.option("--dry-run", is_flag=True, help="read and plan, print what would change, change nothing")
@common(files=("silences", "audit"), now=False)
@pass_invocation
def sync_command(invocation: Invocation, decisions_path: Path, repo: str | None, results_path: Path | None,
                 label: str, run_url: str | None, state_path: Path | None, author: str, dry_run: bool) -> int:
    repo = repo or os.environ.get("GITHUB_REPOSITORY", "")
    token = os.environ.get("GITHUB_TOKEN", "")
    if not _REPO.match(repo):
        return _refuse("name the repository with --repo OWNER/NAME (or set $GITHUB_REPOSITORY)")
    if not token and not dry_run:
        return _refuse("$GITHUB_TOKEN is not set: the workflow passes ${{ github.token }} with issues: write")
    decisions = read_decisions(decisions_path)
    if decisions is None:
        return _refuse(f"{decisions_path}: no such decisions file (did `canary judge` run?)")
    quotes = excerpts.from_results(_read_results(results_path))
    suspended = None
    audit_lines: tuple[audit.AuditLine, ...] = ()
    if state_path is not None:
        suspended = suspended_in(load_state(state_path), decisions.now)
        audit_lines = audit.read(invocation.config().paths.audit).lines
    silences = silences_or_none(invocation.config().paths.silences, lambda line: print(line, file=sys.stderr))
    api = os.environ.get("GITHUB_API_URL") or "https://api.github.com"
    with GitHubClient(repo, token, api_url=api, login=author) as client:
        report = sync(decisions, client, label=label, run_url=run_url or _run_url(), excerpts=quotes,
                      dry_run=dry_run, standing=Standing(suspended, silences, audit_lines))
    for line in report.done:
        print(f"canary issues: {clean(line, 300)}")
    for line in report.failed:
        print(f"canary issues: NOT DONE: {clean(line, 300)}", file=sys.stderr)
    for line in report.warnings:
        print(f"canary issues: warning: {clean(line, 300)}", file=sys.stderr)
        if os.environ.get("GITHUB_ACTIONS") == "true":
            print(f"::warning title=canary issues::{clean(line, 300)}")
    if not report.done and not report.failed and not report.warnings:
        print("canary issues: no endpoint decision this round; nothing to do")
    return 0 if report.ok else 1


def _read_results(path: Path | None) -> RoundResults | None:
    """The round's record; one that cannot be read only loses its excerpts."""
    try:
        raw = None if path is None else read_json(path, "results file", "excerpts are left out")
        return None if raw is None else read_results(raw, str(path))
    except (StoreError, ResultsError) as exc:
        print(f"canary issues: warning: {exc}; excerpts are left out", file=sys.stderr)
        return None


def _run_url() -> str | None:
    server, repo, run = (os.environ.get(k, "") for k in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID"))
    return f"{server}/{repo}/actions/runs/{run}" if server and repo and run else None


def _refuse(message: str) -> int:
    print(f"canary issues: {message}", file=sys.stderr)
    return 2
