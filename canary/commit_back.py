"""Commit the judge's files (state + audit log) and push them, safely, with retries.

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
validated tags, never from free text (see commit_message()).
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from canary.state import fmt_time
from judge.decisions import Action
from judge.report import ReportError, parse_time
from judge.tags import is_valid_round_id, is_valid_tag

DEFAULT_RETRIES = 5
MAX_BODY_LINES = 40              # a round with more decisions says "... and N more"
MAX_SUBJECT_ROUND_ID = 80
BOT_IDENTITY = ("canary[bot]", "canary-bot@users.noreply.github.com")
_ACTIONS = frozenset(a.value for a in Action)
PUSHED, NOTHING, ALREADY_UPSTREAM = "pushed", "nothing to commit", "already applied upstream"


class CommitBackError(RuntimeError):
    """Commit-back gave up; the message says why and what was left as it was."""


@dataclass(frozen=True, slots=True)
class CommitResult:
    status: str
    attempts: int
    reapplied: int


def _tag(value: Any) -> str:
    return value if value == "*" or is_valid_tag(value) else "<invalid tag>"


def commit_message(doc: Mapping[str, Any] | None) -> str:
    """Subject and body naming the decisions; only validated tags, actions, rungs and times."""
    if not doc:
        return "canary: update judge state"
    round_id = doc.get("round_id")
    shown: str = round_id if is_valid_round_id(round_id) else "<invalid round id>"
    if len(shown) > MAX_SUBJECT_ROUND_ID:
        shown = shown[: MAX_SUBJECT_ROUND_ID - 3] + "..."
    decisions = [d for d in doc.get("decisions", []) if isinstance(d, Mapping)]
    mode = doc.get("mode") if doc.get("mode") in ("observe", "enforce") else "?"
    lines = [f"canary: round {shown} ({mode}): {len(decisions)} decision(s)", ""]
    for d in decisions[:MAX_BODY_LINES]:
        action = d.get("action") if d.get("action") in _ACTIONS else "unknown"
        line = f"- {action} {_tag(d.get('provider'))} ({_tag(d.get('model'))})"
        if isinstance(d.get("rung"), int) and not isinstance(d.get("rung"), bool):
            line += f" rung {d['rung']}"
        try:
            line += f" until {fmt_time(parse_time(d['until'], 'until'))}" if d.get("until") else ""
        except ReportError:
            pass
        lines.append(line)
    if len(decisions) > MAX_BODY_LINES:
        lines.append(f"- ... and {len(decisions) - MAX_BODY_LINES} more (see state/audit.jsonl)")
    return "\n".join(lines).rstrip() + "\n"


class _Git:
    """git in one repository; without a configured identity, commits (and rebases) use the bot's."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self.identity: list[str] = []
        if self.run("config", "user.email", check=False).returncode != 0:
            self.identity = ["-c", f"user.name={BOT_IDENTITY[0]}", "-c", f"user.email={BOT_IDENTITY[1]}"]

    def run(self, *args: str, check: bool = True, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        result = subprocess.run(["git", "-C", str(self.repo), *self.identity, *args], capture_output=True,
                                text=True, input=stdin if stdin is not None else "", check=False)
        if check and result.returncode != 0:
            raise CommitBackError(f"git {args[0]} failed: {result.stderr.strip()[-500:]}")
        return result


def commit_back(repo: Path, files: Sequence[Path], message: Callable[[], str], *, remote: str, branch: str,
                retries: int = DEFAULT_RETRIES, reapply: Callable[[], int] | None = None,
                sleep: Callable[[float], None] = time.sleep, inputs: Sequence[Path] = ()) -> CommitResult:
    """Commit `files` (paths inside `repo`) and push to remote/branch; see the module docstring.

    `inputs`: files the judge read but does not write (the exclusion files). When the remote
    changed one of them and `reapply` is given, the round is re-applied rather than rebased, so
    the capacity floor weighs the exclusions people pushed meanwhile.
    """
    git = _Git(repo)
    rel = [str(Path(f).resolve().relative_to(Path(repo).resolve())) for f in files]
    read_only = [r for r in (_inside(repo, f) for f in inputs) if r is not None]
    watched = rel + read_only if reapply is not None else rel
    _refuse_foreign_changes(git, rel)
    if not _stage_and_commit(git, rel, message()):
        return CommitResult(NOTHING, 0, 0)
    reapplied = 0
    for attempt in range(1, retries + 1):
        if git.run("push", remote, f"HEAD:refs/heads/{branch}", check=False).returncode == 0:
            return CommitResult(PUSHED, attempt, reapplied)
        if attempt > 1:
            sleep(min(2.0 * attempt, 10.0))  # contention persists: let the other pusher finish
        git.run("fetch", remote, branch)
        if _remote_touched(git, watched) or git.run("-c", "core.editor=true", "rebase", "FETCH_HEAD",
                                                check=False).returncode != 0:
            git.run("rebase", "--abort", check=False)
            if reapply is None:
                raise CommitBackError("the judge's files conflict with the remote and nothing can be re-applied "
                                      "(pass --reapply RESULTS...); the local commit was left unpushed")
            git.run("reset", "--hard", "FETCH_HEAD")
            reapplied += 1
            if reapply() != 0:
                raise CommitBackError("re-applying the round on the remote's state failed; nothing was pushed")
            if not _stage_and_commit(git, rel, message()):
                return CommitResult(ALREADY_UPSTREAM, attempt, reapplied)
    raise CommitBackError(f"push still rejected after {retries} attempts; the commit stays local, nothing was forced")


def _inside(repo: Path, path: Path) -> str | None:
    """`path` relative to `repo`, or None when it lives outside the repository."""
    try:
        return str(Path(path).resolve().relative_to(Path(repo).resolve()))
    except ValueError:
        return None


def _remote_touched(git: _Git, rel: list[str]) -> bool:
    """True when the remote changed the judge's files since our base (or the base is unknown)."""
    base = git.run("merge-base", "HEAD", "FETCH_HEAD", check=False)
    if base.returncode != 0:
        return True  # a shallow clone that cannot see the base: re-derive rather than guess
    diff = git.run("diff", "--quiet", base.stdout.strip(), "FETCH_HEAD", "--", *rel, check=False)
    return diff.returncode != 0


def _refuse_foreign_changes(git: _Git, ours: list[str]) -> None:
    status = git.run("status", "--porcelain", "--untracked-files=no").stdout.splitlines()
    foreign = [line[3:] for line in status if line[3:] not in ours]
    if foreign:
        raise CommitBackError(f"other tracked files have uncommitted changes ({', '.join(foreign[:5])}); "
                              "commit or stash them first: commit-back may reset the working tree")


def _stage_and_commit(git: _Git, rel: list[str], message: str) -> bool:
    present = [r for r in rel if (git.repo / r).exists()]  # a fresh repository may lack the audit log
    if present:
        git.run("add", "--", *present)
    if git.run("diff", "--cached", "--quiet", check=False).returncode == 0:
        return False
    git.run("commit", "--no-verify", "-F", "-", stdin=message)
    return True
