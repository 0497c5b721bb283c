"""`canary issues sync --decisions FILE [--repo OWNER/NAME]`: incidents as GitHub issues.

One issue per model x endpoint that is suspended (enforce) or would be (observe), with the
evidence; later decisions comment on it; restore, expiry or lift closes it. Idempotent:
re-running the same decisions writes nothing new. Token from $GITHUB_TOKEN (needs
`issues: write`), API from $GITHUB_API_URL, repository from --repo or $GITHUB_REPOSITORY,
the round's link from $GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID.
An endpoint silenced at the round's time (paths.silences, docs/silences.md) is left alone.

Exit codes: 0 everything done (or nothing to do; also when the repository has Issues turned
off, the default on forks: a warning says so), 1 some operations were not done (listed; the
next run does what is still missing for its own decisions), 2 it could not start.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

from canary.cli.commands._options import add_common, config_of
from canary.integrations.github_issues import excerpts
from canary.integrations.github_issues.client import GitHubClient
from canary.integrations.github_issues.sync import DEFAULT_LABEL, suspended_in, sync
from canary.state.judge_files import load_state
from canary.state.results_files import read_decisions
from canary.state.silences import silences_or_none
from core.results import ResultsError, RoundResults, read_results
from core.store import StoreError, read_json
from core.untrusted import clean

_REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("issues", help="incidents as GitHub issues (open, comment, close)")
    sub = p.add_subparsers(dest="issues_command", metavar="ACTION", required=True)
    s = sub.add_parser("sync", help="bring the incident issues up to date with a round's decisions")
    s.add_argument("--decisions", type=Path, required=True, metavar="PATH", help="the round's decisions.json")
    s.add_argument("--repo", default=None, help="OWNER/NAME (default: $GITHUB_REPOSITORY)")
    s.add_argument("--results", type=Path, nargs="*", default=[], metavar="RESULTS.json",
                   help="the round's results file(s), for reply excerpts in new issues")
    s.add_argument("--label", default=DEFAULT_LABEL,
                   help=f"the label that finds canary's issues (default: {DEFAULT_LABEL})")
    s.add_argument("--run-url", default=None, help="link of the round (default: this workflow run)")
    s.add_argument("--state", type=Path, default=None, metavar="PATH",
                   help="the judge's state after the round: heal issues a cut-short earlier sync left behind")
    s.add_argument("--dry-run", action="store_true", help="read and plan, print what would change, change nothing")
    add_common(s, files=("silences",), now=False)
    s.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    repo = args.repo or os.environ.get("GITHUB_REPOSITORY", "")
    token = os.environ.get("GITHUB_TOKEN", "")
    if not _REPO.match(repo):
        return _refuse("name the repository with --repo OWNER/NAME (or set $GITHUB_REPOSITORY)")
    if not token and not args.dry_run:
        return _refuse("$GITHUB_TOKEN is not set: the workflow passes ${{ github.token }} with issues: write")
    doc = read_decisions(args.decisions)
    if doc is None:
        return _refuse(f"{args.decisions}: no such decisions file (did `canary judge` run?)")
    quotes = excerpts.from_results(_read_results(args.results))
    suspended = None
    if args.state is not None:
        suspended = suspended_in(load_state(args.state), doc.now)
    silences = silences_or_none(config_of(args).paths.silences, lambda line: print(line, file=sys.stderr))
    api = os.environ.get("GITHUB_API_URL") or "https://api.github.com"
    with GitHubClient(repo, token, api_url=api) as client:
        report = sync(doc, client, label=args.label, run_url=args.run_url or _run_url(), excerpts=quotes,
                      dry_run=args.dry_run, suspended=suspended, silences=silences)
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


def _read_results(paths: list[Path]) -> list[RoundResults]:
    """Each readable shard's record; one that cannot be read only loses its excerpts."""
    shards = []
    for path in paths:
        try:
            raw = read_json(path, "results file", "excerpts are left out")
            if raw is not None:
                shards.append(read_results(raw, str(path)))
        except (StoreError, ResultsError) as exc:
            print(f"canary issues: warning: {exc}; excerpts are left out", file=sys.stderr)
    return shards


def _run_url() -> str | None:
    server, repo, run = (os.environ.get(k, "") for k in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID"))
    return f"{server}/{repo}/actions/runs/{run}" if server and repo and run else None


def _refuse(message: str) -> int:
    print(f"canary issues: {message}", file=sys.stderr)
    return 2
