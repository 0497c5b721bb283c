"""`canary commit`: commit the judge's files (state + audit) and push, rebasing and re-applying.

    canary commit [--message-from reports/decisions.json] [--remote origin] [--branch B]
                  [--retries 5] [--reapply RESULTS.json ...] [--repo DIR]

--reapply names the round's results files: when the judge's own files conflict with what was
pushed meanwhile, the working tree is reset to the remote and `canary judge` runs again on
them, with the `now` and `mode` recorded in the decisions file, so the re-run decides the same
way on the fresh state. Without --reapply such a conflict stops with an error (nothing forced).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from canary.commands._options import add_common, config_of
from canary.commands.judge import DEFAULT_DECISIONS_FILE, run_judge
from canary.commit_back import DEFAULT_RETRIES, CommitBackError, commit_back, commit_message
from canary.store import StoreError, read_json
from judge.report import ReportError, parse_time


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("commit", help="commit and push the judge's state and audit log")
    p.add_argument("--message-from", type=Path, default=None, metavar="DECISIONS.json",
                   help="decisions file naming this round's decisions (default: <paths.reports>/decisions.json)")
    p.add_argument("--remote", default="origin")
    p.add_argument("--branch", default=None, help="branch to push to (default: $GITHUB_REF_NAME, else the current one)")
    p.add_argument("--retries", type=int, default=DEFAULT_RETRIES)
    p.add_argument("--reapply", nargs="+", type=Path, default=None, metavar="RESULTS.json",
                   help="results file(s) to re-judge when the judge's files conflict with the remote")
    p.add_argument("--repo", type=Path, default=None, help="repository folder (default: the current one)")
    add_common(p, now=False)
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    config = config_of(args)
    repo = args.repo or Path.cwd()
    decisions_path = args.message_from or Path(config.paths.reports) / DEFAULT_DECISIONS_FILE
    try:
        branch = args.branch or os.environ.get("GITHUB_REF_NAME") or _current_branch(repo)

        def message() -> str:
            return commit_message(read_json(decisions_path, "decisions file", "re-run canary judge"))

        def reapply() -> int:
            doc = read_json(decisions_path, "decisions file", "re-run canary judge") or {}
            now = parse_time(doc["now"], "now") if doc.get("now") else None
            if now is None:
                print("canary commit: the decisions file has no 'now'; cannot re-apply", file=sys.stderr)
                return 2
            return run_judge(args.reapply, config, now=now, mode=doc.get("mode") or config.mode,
                             decisions_out=decisions_path, send=False)

        result = commit_back(repo, [config.paths.state, config.paths.audit], message, remote=args.remote,
                             branch=branch, retries=args.retries, reapply=reapply if args.reapply else None,
                             inputs=[config.paths.builtin, config.paths.incidents])
    except (CommitBackError, StoreError, ReportError, ValueError) as exc:
        print(f"canary commit: {exc}", file=sys.stderr)
        return 1
    print(f"canary commit: {result.status} (attempts: {result.attempts}, re-applied: {result.reapplied})")
    return 0


def _current_branch(repo: Path) -> str:
    out = subprocess.run(["git", "-C", str(repo), "rev-parse", "--abbrev-ref", "HEAD"],
                         capture_output=True, text=True, check=False)
    branch = out.stdout.strip()
    if out.returncode != 0 or not branch or branch == "HEAD":
        raise CommitBackError("cannot tell the current branch (detached HEAD?); pass --branch")
    return branch
