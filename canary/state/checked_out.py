"""Commit-back on the checked-out branch (paths.state_branch empty), for a token that may push there.

commit_to_checked_out_branch(), on the checked-out branch:

    stage state+audit; nothing staged -> done ("nothing to commit")
    commit; then up to `retries` times:
        push (never --force)                          -> done ("pushed")
        rejected: fetch the branch; if the remote did not touch the judge's files since our
            base, rebase onto it (only other files moved, so no conflict) -> push again
        the remote changed the judge's files too (another judge run, a `canary lift`, an
        incident command's audit line), or an exclusion file the judge read (with `reapply`:
        the capacity floor must weigh it), or the rebase fails: never merge the state textually
        (two JSON edits can merge cleanly into a state no round produced), instead:
            rebase --abort, reset --hard to the fetched tip (a person's edits are all on the
            remote, so nothing of theirs is lost), re-apply the round(s) on that fresh state
            through `reapply` (the judge is a pure function of state + results), commit, push

It refuses to start when other tracked files have uncommitted changes, since a reset would
lose them. git runs with argument lists only (no shell); the commit message is built from
validated tags, never from free text (commit_back.py's commit_message()). A push that stays rejected ends
with git's own message, so a branch rule that blocks the bot is named, not guessed at.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path

from canary.state.commit_back import (
    ALREADY_UPSTREAM,
    DEFAULT_RETRIES,
    NOTHING,
    PUSHED,
    CommitBackError,
    CommitResult,
    inside,
    relative_all,
    under,
)
from canary.state.git import Git, git_said
from core.retry import Backoff

# The pause after the nth rejected push, to let the other pusher finish: 2 s per attempt, at most
# 10; the first rejection is rebased at once.
CHECKED_OUT_PAUSES_S = (0.0, 4.0, 6.0, 8.0, 10.0)


def commit_to_checked_out_branch(repo: Path, files: Sequence[Path], message: Callable[[], str], *,
                remote: str, branch: str, retries: int = DEFAULT_RETRIES, reapply: Callable[[], None] | None = None,
                sleep: Callable[[float], None] = time.sleep, inputs: Sequence[Path] = (),
                folders: Sequence[Path] = ()) -> CommitResult:
    """Commit `files` (paths inside `repo`) and push to remote/branch; see the module docstring.

    `inputs`: files the judge read but does not write (the exclusion files). When the remote
    changed one of them and `reapply` is given, the round is re-applied rather than rebased, so
    the capacity floor weighs the exclusions people pushed meanwhile.
    `folders` (the round history) are committed as they are on disk, deletions included; one
    that is absent on disk is left as the branch has it.
    """
    git = Git(repo)
    rel = relative_all(repo, files)
    dirs = relative_all(repo, folders)
    read_only = [r for r in (inside(repo, f) for f in inputs) if r is not None]
    watched = rel + dirs + read_only if reapply is not None else rel + dirs
    _refuse_foreign_changes(git, rel, dirs)
    if not _stage_and_commit(git, rel, dirs, message()):
        return CommitResult(NOTHING, 0, 0)
    reapplied = 0
    said = ""
    for attempt in Backoff(retries, CHECKED_OUT_PAUSES_S).tries(sleep):
        if attempt > 1:  # the push before was rejected: take the remote's commits (after the pause)
            git.run("fetch", remote, branch)
            if _remote_touched(git, watched) or git.run("-c", "core.editor=true", "rebase", "FETCH_HEAD",
                                                    check=False).returncode != 0:
                git.run("rebase", "--abort", check=False)
                if reapply is None:
                    raise CommitBackError("the judge's files conflict with the remote and nothing can be re-applied "
                                          "(pass --reapply RESULTS...); the local commit was left unpushed")
                git.run("reset", "--hard", "FETCH_HEAD")
                reapplied += 1
                reapply()  # raises CommitBackError when the judge refuses: nothing is pushed then
                if not _stage_and_commit(git, rel, dirs, message()):
                    return CommitResult(ALREADY_UPSTREAM, attempt - 1, reapplied)
        push = git.run("push", remote, f"HEAD:refs/heads/{branch}", check=False)
        if push.returncode == 0:
            return CommitResult(PUSHED, attempt, reapplied)
        said = git_said(push)
    raise CommitBackError(f"push to {remote} {branch} still rejected after {retries} attempts; the commit stays "
                          f"local, nothing was forced. git said: {said}")


def _remote_touched(git: Git, rel: list[str]) -> bool:
    """True when the remote changed the judge's files since our base (or the base is unknown)."""
    base = git.run("merge-base", "HEAD", "FETCH_HEAD", check=False)
    if base.returncode != 0:
        return True  # a shallow clone that cannot see the base: re-derive rather than guess
    diff = git.run("diff", "--quiet", base.stdout.strip(), "FETCH_HEAD", "--", *rel, check=False)
    return diff.returncode != 0


def _refuse_foreign_changes(git: Git, ours: list[str], folders: list[str]) -> None:
    status = git.run("status", "--porcelain", "--untracked-files=no").stdout.splitlines()
    foreign = [line[3:] for line in status if line[3:] not in ours and not under(line[3:], folders)]
    if foreign:
        raise CommitBackError(f"other tracked files have uncommitted changes ({', '.join(foreign[:5])}); "
                              "commit or stash them first: commit-back may reset the working tree")


def _stage_and_commit(git: Git, rel: list[str], dirs: list[str], message: str) -> bool:
    present = [r for r in rel if (git.repo / r).exists()]  # a fresh repository may lack the audit log
    present += [d for d in dirs if (git.repo / d).is_dir()]  # a folder absent on disk is never removed
    if present:
        # --force: state/ may be git-ignored (it lives on its own branch); --all: the history's
        # compaction deletes files; dot files are an interrupted atomic write's leftovers.
        hidden = [f":(exclude,glob){d}/**/.*" for d in dirs if d in present]
        git.run("add", "--force", "--all", "--", *present, *hidden)
    if git.run("diff", "--cached", "--quiet", check=False).returncode == 0:
        return False
    git.run("commit", "--no-verify", "-F", "-", stdin=message)
    return True
