"""`canary fetch-state`: copy the judge's files and the round history from the tip of the state branch
(docs/judge.md, Three layers and Working on the state by hand), remembering the commit they came from
so `canary commit` builds on exactly what the judge read.

Following advice to fetch must never discard a person's change silently: a local state holding a
round the branch lacks, or a state or audit log changed here since the last fetch or push, is not
overwritten without --force. --show-branch prints the configured branch, --exists whether the remote
has it (exit 1 when the remote cannot be asked, so the workflow skips the branch's checkout only
when it is really absent); both touch nothing. $GITHUB_TOKEN authenticates a job without git
credentials.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from canary.cli.commands._options import PATH, Invocation, common, pass_invocation
from canary.history.store import history_root
from canary.state.commit_back import history_folders
from canary.state.judge_files import load_state
from canary.state.state_branch import PullResult, branch_exists, pull_state
from core.store import StoreError
from core.times import fmt_time
from judge.suspension.state import JudgeState, read_state


@click.command("fetch-state",
               short_help="copy the judge's state, audit log and history from the state branch")
@click.option("--remote", default="origin", show_default=True)
@click.option("--state-branch", default=None, metavar="NAME",
              help="the branch holding the judge's files (default: paths.state_branch)")
@click.option("--repo", type=PATH, default=None, help="repository folder (default: the current one)")
@click.option("--force", is_flag=True, help="overwrite a local state that holds rounds never pushed")
@click.option("--show-branch", is_flag=True, help="print the state branch's name and do nothing else")
@click.option("--exists", is_flag=True,
              help="print `true` or `false`: does the remote have the state branch yet (exit 1 when it cannot "
                   "be asked; $GITHUB_TOKEN, when set, authenticates); touches nothing")
@common(files=("state", "audit", "history"), now=False)
@pass_invocation
def fetch_state(invocation: Invocation, remote: str, state_branch: str | None, repo: Path | None, force: bool,
                show_branch: bool, exists: bool) -> int:
    """Copy the judge's files and the round history from the tip of the state branch."""
    config = invocation.config()
    branch = state_branch or config.paths.state_branch
    repo = repo or Path.cwd()
    if show_branch:
        print(branch)
        return 0
    if exists:
        return _exists(repo, remote, branch)
    state = config.paths.state
    result = pull_state(repo, [state, config.paths.audit], remote=remote,
                        branch=branch, force=force, local_ahead=lambda data: _local_ahead(state, data),
                        folders=history_folders(repo, state, history_root(config.paths), "canary fetch-state"))
    if result.tip is None:
        print(f"canary fetch-state: {remote} has no branch {branch} yet; the judge starts from the files in "
              f"this checkout ({state}: {'present' if state.exists() else 'none, an empty state'}) and its first "
              "commit creates the branch")
    else:
        done = [*result.written, *(f"{r} (removed: not on the branch)" for r in result.removed), *_folders(result)]
        print(f"canary fetch-state: {branch} at {result.tip[:12]}: {', '.join(done) or 'no files yet'}")
    return 0


def _exists(repo: Path, remote: str, branch: str) -> int:
    found = branch_exists(repo, remote, branch, token=os.environ.get("GITHUB_TOKEN"))
    print("true" if found else "false")
    return 0


def _folders(result: PullResult) -> list[str]:
    said = []
    for f in result.folders:
        if f.files == 0:
            said.append(f"{f.path}/ (not on the branch yet: the local one stands)")
        else:
            said.append(f"{f.path}/ ({f.files} files: {f.written} written, {f.removed} removed)")
    return said


def _local_ahead(local: Path, branch_state: bytes) -> str | None:
    """Why the local state must not be overwritten (a round the branch lacks), or None."""
    try:
        mine = load_state(local)
    except StoreError:
        return None  # a broken local copy: the branch's version is the one to keep
    last = mine.last_round
    if last is None:
        return None
    try:
        theirs = read_state(json.loads(branch_state), "the state branch") if branch_state else JudgeState()
    except (StoreError, ValueError):
        return None
    if last.round_id in theirs.applied_rounds or (
            theirs.last_round is not None and last.started_at <= theirs.last_round.started_at):
        return None
    return (f"{local} holds round {last.round_id} (started {fmt_time(last.started_at)}), which the state branch does "
            "not have: it was judged here and never pushed")
