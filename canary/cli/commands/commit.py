"""`canary commit`: commit the judge's files (state, audit log, round history) and push them, never forcing,
to the state branch (docs/workflow.md, the judge job; docs/judge.md, Working on the state by hand).
--reapply re-judges the round on the fresh files when they moved upstream; a history folder
configured outside the repository is not committed (a warning says so).
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import click

from canary.cli.commands._options import PATH, Invocation, common, pass_invocation
from canary.history.store import history_root
from canary.round.judging import DEFAULT_DECISIONS_FILE, JudgeRequest, run_judge
from canary.round.refusal import RoundRefused
from canary.state.commit_back import (
    DEFAULT_RETRIES,
    CommitBackError,
    commit_message,
    history_folders,
)
from canary.state.git import Git, current_branch
from canary.state.results_files import read_decisions
from canary.state.state_branch import STATE_BRANCH_PAUSES_S, Carried, commit_to_state_branch
from core.layers import PEOPLE_LAYERS
from core.retry import Backoff

_PLAIN_MESSAGE = re.compile(r"[ -~]{1,200}")


def plain_message(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    """--message: one line of plain ASCII, 1 to 200 characters (a usage error, exit 2, otherwise)."""
    if value is not None and not _PLAIN_MESSAGE.fullmatch(value):
        raise click.BadParameter("must be one line of plain ASCII, 1 to 200 characters")
    return value


@click.command("commit",
               short_help="commit and push the judge's state, audit log and round history (to the state branch)")
@click.option("--message-from", "decisions_path", type=PATH, default=None, metavar="DECISIONS.json",
              help="decisions file naming this round's decisions (default: <paths.reports>/decisions.json)")
@click.option("--message", default=None, metavar="TEXT", callback=plain_message,
              help="a commit message of your own instead (one line of plain ASCII, at most 200 characters)")
@click.option("--remote", default="origin", show_default=True)
@click.option("--state-branch", default=None, metavar="NAME",
              help="branch the judge's files go to (default: paths.state_branch)")
@click.option("--branch", default=None,
              help="the checked-out branch people's files are on (default: $GITHUB_REF_NAME, else the current "
                   "one): an exclusion file it moved meanwhile re-applies the round")
@click.option("--retries", type=int, default=DEFAULT_RETRIES, show_default=True)
@click.option("--reapply", is_flag=True, expose_value=False,
              help="marks the RESULTS.json argument (optional): the round's results file, re-judged when "
                   "the state or the exclusions moved upstream")
@click.argument("results_path", required=False, type=PATH, metavar="[--reapply RESULTS.json]")
@click.option("--repo", type=PATH, default=None, help="repository folder (default: the current one)")
@common(now=False)
@pass_invocation
def commit(invocation: Invocation, decisions_path: Path | None, message: str | None, remote: str,
           state_branch: str | None, branch: str | None, retries: int, results_path: Path | None,
           repo: Path | None) -> int:
    """Commit the judge's files (state, audit log, round history) and push them, never forcing."""
    config = invocation.config()
    repo = repo or Path.cwd()
    decisions_path = decisions_path or Path(config.paths.reports) / DEFAULT_DECISIONS_FILE
    target = state_branch or config.paths.state_branch

    def message_text() -> str:
        if message is not None:
            return message + "\n"
        return commit_message(read_decisions(decisions_path))

    def reapply() -> None:
        decisions = read_decisions(decisions_path)
        if decisions is None:
            raise CommitBackError(f"{decisions_path}: no decisions file; cannot re-apply")
        try:
            run_judge(JudgeRequest(
                results_path, config, decisions.now, mode=decisions.mode or None, decisions_out=decisions_path,
                send=False, expect=decisions.request.expected_models,
                allow_simulator=decisions.request.allow_simulator))
        except RoundRefused as exc:
            raise CommitBackError(f"canary judge refused to re-apply the round: {exc}") from exc

    carried = Carried([config.paths.state, config.paths.audit],  # inputs: people's layers, a change re-applies
                      history_folders(repo, config.paths.state, history_root(config.paths), "canary commit"),
                      append_only=[config.paths.audit],
                      inputs=list(config.paths.layer_paths(PEOPLE_LAYERS).values()))
    result = commit_to_state_branch(repo, carried, message_text, remote=remote, branch=target,
                                    people_branch=_people_branch(branch, repo),
                                    reapply=reapply if results_path else None,
                                    tries=Backoff(retries, STATE_BRANCH_PAUSES_S).tries(time.sleep))
    print(f"canary commit: {result.status} ({remote} {target}; attempts: {result.attempts}, "
          f"re-applied: {result.reapplied})")
    return 0


def _people_branch(branch: str | None, repo: Path) -> str | None:
    """The branch the exclusion files were read from; None (not watched) on a detached checkout."""
    if branch or os.environ.get("GITHUB_REF_NAME"):
        return str(branch or os.environ["GITHUB_REF_NAME"])
    try:
        return current_branch(Git(repo))
    except CommitBackError:
        return None
