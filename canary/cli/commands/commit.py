"""`canary commit`: commit the judge's files (state, audit log, round history) and push them, never forcing.

    canary commit [--message-from reports/decisions.json | --message TEXT] [--remote origin]
                  [--state-branch NAME] [--branch B] [--retries 5] [--reapply RESULTS.json ...] [--repo DIR]

Where to: the state branch (paths.state_branch in canary.yaml, default `canary-state`; created
as an orphan branch on first use), so a protected main never blocks the bot; `--state-branch ''`
(or an empty paths.state_branch) pushes to the checked-out branch instead (--branch), for a
token that may push there. `canary fetch-state` must have copied the branch's files before the
judge ran: the commit is built on the state the judge read, and a branch that moved since is
caught.

The round history (paths.history, default `history/` next to the state) goes with them: each
commit carries the folder as it is on disk, the round's new file and the files compaction
deleted, and nothing else of it (unchanged files keep their git objects). A history folder
absent on disk is left as the branch has it; one configured outside the repository is not
committed (a warning says so: the history is evidence, it never blocks the state's commit).

--reapply names the round's results files: when the judge's files moved upstream meanwhile (a
concurrent run, a `canary lift`), or main moved an exclusion file the judge read (the capacity
floor must weigh it), the fresh versions are written and `canary judge` runs again on them,
with the `now`, `mode` and planned models recorded in the decisions file, so it decides the same
way on the fresh state; the decisions file is rewritten with what was really committed. Without
--reapply such a conflict stops with an error (nothing forced, nothing pushed).

--message TEXT replaces the message built from the decisions file (one line of plain ASCII),
e.g. after `canary lift` or `canary announce` recorded something in the audit log. When the only
change since the files were fetched (or last pushed) is lines appended to the audit log (the
record of an undelivered notification, an incident line), a branch that moved meanwhile takes
them on top of its own audit log: nothing to re-judge. Any other change on a moved branch
without --reapply (a person's `canary lift`) stops, pushes nothing and says how to redo it.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

from canary.cli.commands._options import add_common, config_of
from canary.history.store import history_root
from canary.round.judging import DEFAULT_DECISIONS_FILE, JudgeRequest, run_judge
from canary.state.checked_out import commit_to_checked_out_branch
from canary.state.commit_back import (
    DEFAULT_RETRIES,
    CommitBackError,
    commit_message,
    history_folders,
)
from canary.state.git import Git, current_branch
from canary.state.results_files import read_decisions
from canary.state.state_branch import commit_to_state_branch
from core.layers import PEOPLE_LAYERS

_PLAIN_MESSAGE = re.compile(r"[ -~]{1,200}")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "commit", help="commit and push the judge's state, audit log and round history (to the state branch)")
    p.add_argument("--message-from", type=Path, default=None, metavar="DECISIONS.json",
                   help="decisions file naming this round's decisions (default: <paths.reports>/decisions.json)")
    p.add_argument("--message", default=None, metavar="TEXT",
                   help="a commit message of your own instead (one line of plain ASCII, at most 200 characters)")
    p.add_argument("--remote", default="origin")
    p.add_argument("--state-branch", default=None, metavar="NAME",
                   help="branch the judge's files go to (default: paths.state_branch; '' = the checked-out branch)")
    p.add_argument("--branch", default=None,
                   help="the checked-out branch people's files are on (default: $GITHUB_REF_NAME, else the current "
                        "one); the push target only when there is no state branch")
    p.add_argument("--retries", type=int, default=DEFAULT_RETRIES)
    p.add_argument("--reapply", nargs="+", type=Path, default=None, metavar="RESULTS.json",
                   help="results file(s) to re-judge when the state or the exclusions moved upstream")
    p.add_argument("--repo", type=Path, default=None, help="repository folder (default: the current one)")
    add_common(p, now=False)
    p.set_defaults(func=_run, refused=1)


def _run(args: argparse.Namespace) -> int:
    config = config_of(args)
    repo = args.repo or Path.cwd()
    decisions_path = args.message_from or Path(config.paths.reports) / DEFAULT_DECISIONS_FILE
    state_branch = config.paths.state_branch if args.state_branch is None else (args.state_branch or None)
    if args.message is not None and not _PLAIN_MESSAGE.fullmatch(args.message):
        print("canary commit: --message must be one line of plain ASCII, 1 to 200 characters", file=sys.stderr)
        return 2

    def message() -> str:
        if args.message is not None:
            return str(args.message) + "\n"
        return commit_message(read_decisions(decisions_path))

    def reapply() -> int:
        doc = read_decisions(decisions_path)
        if doc is None:
            print(f"canary commit: {decisions_path}: no decisions file; cannot re-apply", file=sys.stderr)
            return 2
        outcome = run_judge(JudgeRequest(
            tuple(args.reapply), config, doc.now, mode=doc.mode or None, decisions_out=decisions_path,
            send=False, expect=doc.request.expected_models, allow_simulator=doc.request.allow_simulator))
        if outcome.error is not None:
            print(f"canary judge: {outcome.error}", file=sys.stderr)
        return outcome.code

    files = [config.paths.state, config.paths.audit]
    folders = history_folders(repo, config.paths.state, history_root(config.paths), "canary commit")
    inputs = list(config.paths.layer_paths(PEOPLE_LAYERS).values())  # people's layers: a change re-applies the round
    again = reapply if args.reapply else None
    if state_branch is not None:
        result = commit_to_state_branch(repo, files, message, remote=args.remote, branch=state_branch,
                                        people_branch=_people_branch(args, repo), retries=args.retries,
                                        reapply=again, inputs=inputs, folders=folders,
                                        append_only=[config.paths.audit])
        where = state_branch
    else:
        where = args.branch or os.environ.get("GITHUB_REF_NAME") or _current_branch(repo)
        result = commit_to_checked_out_branch(repo, files, message, remote=args.remote, branch=where,
                                              retries=args.retries, reapply=again, inputs=inputs, folders=folders)
    print(f"canary commit: {result.status} ({args.remote} {where}; attempts: {result.attempts}, "
          f"re-applied: {result.reapplied})")
    return 0


def _people_branch(args: argparse.Namespace, repo: Path) -> str | None:
    """The branch the exclusion files were read from; None (not watched) on a detached checkout."""
    if args.branch or os.environ.get("GITHUB_REF_NAME"):
        return str(args.branch or os.environ["GITHUB_REF_NAME"])
    try:
        return _current_branch(repo)
    except CommitBackError:
        return None


def _current_branch(repo: Path) -> str:
    return current_branch(Git(repo))
