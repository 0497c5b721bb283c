"""Commit the judge's files (state, audit log, round history) and push them, safely, with retries.

Two layouts (canary.yaml's paths.state_branch):

- **Their own branch** (the default, `canary-state`): commit_to_state_branch() below. People's
  files (exclusion YAML, canary.yaml) stay on main under review; the machine-written state and
  audit log are committed to a branch only the judge (and `canary lift`/`incident` users) write.
  A protected main therefore never blocks a round: GITHUB_TOKEN can never be on a ruleset's
  bypass list, and its pushes trigger no workflow, so a required status check never reports.
- **The checked-out branch** (paths.state_branch empty): commit_back() right here, for a token
  that may push there (a GitHub App on the bypass list).

commit_back(), on the checked-out branch:

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
validated tags, never from free text (see commit_message()). A push that stays rejected ends
with git's own message, so a branch rule that blocks the bot is named, not guessed at.

The state branch (pull_state(), then commit_to_state_branch()) is written without a worktree
and without touching the checkout's HEAD: the judge's files sit at their usual paths in the
main checkout (state/ is ignored there), and each commit is built with git plumbing from the
branch tip's tree plus those files:

    pull_state      fetch the branch tip (only the tip in a shallow clone, as CI's checkout is);
                    copy its files over the local ones (first use:
                    the branch does not exist, the local files stand; local files changed
                    since state-base and never pushed are not overwritten without force);
                    remember the tip in refs/canary/state-base: the state the judge is about
                    to read
    commit          up to `retries` times:
                      fetch the tip; if it moved the judge's files since state-base and the
                      only local change is lines appended to the audit log (an undelivered
                      notification's record): take the tip's files, append those lines again;
                      else if it moved them (a concurrent run, a `canary lift`) - or, with `reapply`, main moved an
                      exclusion file the judge read (the capacity floor must weigh it):
                          write the tip's files (and main's exclusion files), re-apply the
                          round(s) through `reapply` on them (never a textual merge of state)
                      tree = tip's tree + the judge's files; nothing changed -> done
                      commit-tree (parent: the tip; none on first use: an orphan branch)
                      push <commit>:refs/heads/<branch> (never --force; a concurrent creation
                      or push is a non-fast-forward rejection, retried on the fresh tip)
                      rejected twice while the tip stayed where it was: not a race but a
                      rule or a permission -> stop with git's message

Folders (`folders=`, the round history under paths.history: one new file per round, old days
folded into day files and their round files deleted) travel with the files, in both layouts.
A folder on disk is the truth for its part of the tree: additions and deletions are committed,
and a file that did not change keeps its blob, so a round's commit adds one small file and the
trees above it (git hashes every file in one call; only new ones are written). pull_state and a
re-apply make the local folder an exact copy of the branch's first (a concurrent run's round
arrives, our own is recorded again by the re-applied judge, idempotently). Safety rails: a
folder absent on disk is never removed from the branch, a branch without the folder leaves the
local one standing (its first commit adds it), and dot files (an interrupted atomic write's
leftovers) are never committed.
"""

from __future__ import annotations

import base64
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.errors import CanaryError
from core.retry import Backoff
from core.store import atomic_write_bytes
from core.tags import is_valid_round_id, is_valid_tag
from core.times import TimeFormatError, fmt_time, parse_time
from judge.suspension.decisions import Action

DEFAULT_RETRIES = 5
# The pause after the nth rejected push, to let the other pusher finish (or a passing fault clear):
# 2 s per attempt, at most 10. On the checked-out branch the first rejection is rebased at once.
STATE_BRANCH_PAUSES_S = (2.0, 4.0, 6.0, 8.0, 10.0)
CHECKED_OUT_PAUSES_S = (0.0, 4.0, 6.0, 8.0, 10.0)
MAX_BODY_LINES = 40              # a round with more decisions says "... and N more"
MAX_SUBJECT_ROUND_ID = 80
BOT_IDENTITY = ("canary[bot]", "canary-bot@users.noreply.github.com")
_ACTIONS = frozenset(a.value for a in Action)
PUSHED, NOTHING, ALREADY_UPSTREAM = "pushed", "nothing to commit", "already applied upstream"
STATE_BASE_REF = "refs/canary/state-base"   # the state-branch commit whose files the judge read
MAX_GIT_MESSAGE = 800
STATE_BRANCH_README = """# The canary's state

Machine-written: `canary judge` commits the judge's state (`state/canary-state.json`) and its
append-only audit log (`state/audit.jsonl`) here after every round. People's files (the
exclusion YAML, `canary.yaml`) live on the default branch, under review. Never force-push this
branch; `canary lift` and `canary incident` users commit here with `canary commit`.
"""


class CommitBackError(CanaryError, RuntimeError):
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
        except TimeFormatError:
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

    def run(self, *args: str, check: bool = True, stdin: str | None = None,
            env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        result = subprocess.run(["git", "-C", str(self.repo), *self.identity, *args], capture_output=True,
                                text=True, input=stdin if stdin is not None else "", check=False,
                                env={**os.environ, **env} if env else None)
        if check and result.returncode != 0:
            raise CommitBackError(f"git {args[0]} failed: {git_said(result)}")
        return result

    def run_bytes(self, *args: str, stdin: bytes = b"", env: Mapping[str, str] | None = None) -> bytes:
        """git with bytes in and out (paths and blobs need not be text); CommitBackError on failure."""
        result = subprocess.run(["git", "-C", str(self.repo), *self.identity, *args], capture_output=True,
                                input=stdin, check=False, env={**os.environ, **env} if env else None)
        if result.returncode != 0:
            said = result.stderr.decode("utf-8", "replace").strip()[-MAX_GIT_MESSAGE:]
            raise CommitBackError(f"git {args[0]} failed: {said or f'(no message; exit {result.returncode})'}")
        return result.stdout

    def blob(self, commit: str, path: str) -> bytes | None:
        """The bytes of `path` at `commit`, or None when the commit has no such file."""
        result = subprocess.run(["git", "-C", str(self.repo), "cat-file", "blob", f"{commit}:{path}"],
                                capture_output=True, check=False)
        return result.stdout if result.returncode == 0 else None


def git_said(result: subprocess.CompletedProcess[str]) -> str:
    """git's own message (stderr), trimmed to its end: that is where the reason is."""
    text = (result.stderr or result.stdout or "").strip()
    return text[-MAX_GIT_MESSAGE:] if text else f"(no message; exit {result.returncode})"


def commit_back(repo: Path, files: Sequence[Path], message: Callable[[], str], *, remote: str, branch: str,
                retries: int = DEFAULT_RETRIES, reapply: Callable[[], int] | None = None,
                sleep: Callable[[float], None] = time.sleep, inputs: Sequence[Path] = (),
                folders: Sequence[Path] = ()) -> CommitResult:
    """Commit `files` (paths inside `repo`) and push to remote/branch; see the module docstring.

    `inputs`: files the judge read but does not write (the exclusion files). When the remote
    changed one of them and `reapply` is given, the round is re-applied rather than rebased, so
    the capacity floor weighs the exclusions people pushed meanwhile.
    `folders` (the round history) are committed as they are on disk, deletions included; one
    that is absent on disk is left as the branch has it.
    """
    git = _Git(repo)
    rel = _relative_all(repo, files)
    dirs = _relative_all(repo, folders)
    read_only = [r for r in (_inside(repo, f) for f in inputs) if r is not None]
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
                if reapply() != 0:
                    raise CommitBackError("re-applying the round on the remote's state failed; nothing was pushed")
                if not _stage_and_commit(git, rel, dirs, message()):
                    return CommitResult(ALREADY_UPSTREAM, attempt - 1, reapplied)
        push = git.run("push", remote, f"HEAD:refs/heads/{branch}", check=False)
        if push.returncode == 0:
            return CommitResult(PUSHED, attempt, reapplied)
        said = git_said(push)
    raise CommitBackError(f"push to {remote} {branch} still rejected after {retries} attempts; the commit stays "
                          f"local, nothing was forced. git said: {said}")


def is_inside(repo: Path, path: Path) -> bool:
    """Does `path` live inside the repository (so that it can be committed)?"""
    return _inside(repo, path) is not None


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


def _refuse_foreign_changes(git: _Git, ours: list[str], folders: list[str]) -> None:
    status = git.run("status", "--porcelain", "--untracked-files=no").stdout.splitlines()
    foreign = [line[3:] for line in status if line[3:] not in ours and not _under(line[3:], folders)]
    if foreign:
        raise CommitBackError(f"other tracked files have uncommitted changes ({', '.join(foreign[:5])}); "
                              "commit or stash them first: commit-back may reset the working tree")


def _under(path: str, folders: Sequence[str]) -> bool:
    return any(path == d or path.startswith(d + "/") for d in folders)


def _stage_and_commit(git: _Git, rel: list[str], dirs: list[str], message: str) -> bool:
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


# --- the judge's files on their own branch ---------------------------------------------------

@dataclass(frozen=True, slots=True)
class FolderCopy:
    """What copying one folder (the round history) from the branch did."""

    path: str
    files: int      # files the branch has there (0: the branch has no such folder; the local one stands)
    written: int    # of them written because the local copy lacked or differed from them
    removed: int    # local files removed because the branch does not have them (compacted elsewhere)


@dataclass(frozen=True, slots=True)
class PullResult:
    tip: str | None            # the state-branch commit copied; None: the branch does not exist yet
    written: tuple[str, ...]   # files written from it
    removed: tuple[str, ...]   # local files removed because the branch does not have them
    folders: tuple[FolderCopy, ...] = ()


def fetch_tip(git: _Git, remote: str, branch: str, *, shallow: bool = False) -> str | None:
    """The current tip of remote/branch (objects included); None when it does not exist.

    `shallow`: fetch only the tip, for the state branch in a clone that is shallow already (CI's
    checkout): its history grows by 48 commits a day and nobody there needs it. A developer's full
    clone fetches normally, and main is never fetched shallow (a shallow clone's own boundary is
    kept by a plain fetch; a --depth fetch into a full clone would hide history behind the tip).
    """
    depth = ["--depth=1"] if shallow else []
    fetched = git.run("fetch", "--quiet", "--no-tags", *depth, remote, f"refs/heads/{branch}", check=False)
    if fetched.returncode == 0:
        return git.run("rev-parse", "--verify", "FETCH_HEAD^{commit}").stdout.strip()
    if git.run("ls-remote", "--exit-code", "--heads", remote, f"refs/heads/{branch}", check=False).returncode == 2:
        return None
    raise CommitBackError(f"cannot fetch {branch} from {remote}. git said: {git_said(fetched)}")


def branch_exists(repo: Path, remote: str, branch: str, *, token: str | None = None) -> bool:
    """Does remote/branch exist? CommitBackError when the remote cannot be asked (never a guess).

    For the jobs that check the state branch out without keeping git credentials: `token` (the
    job's GITHUB_TOKEN) reaches git as an HTTP header through git's environment, as
    actions/checkout passes it, never on a command line; a public repository needs none.
    """
    env = None
    if token:
        basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
        env = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "http.extraheader",
               "GIT_CONFIG_VALUE_0": f"AUTHORIZATION: basic {basic}"}
    asked = _Git(repo).run("ls-remote", "--exit-code", "--heads", remote, f"refs/heads/{branch}", check=False, env=env)
    if asked.returncode in (0, 2):
        return asked.returncode == 0
    said = git_said(asked).replace(token, "***") if token else git_said(asked)
    raise CommitBackError(f"cannot ask {remote} whether the branch {branch} exists (git ls-remote exit "
                          f"{asked.returncode}). git said: {said}")


def pull_state(repo: Path, files: Sequence[Path], *, remote: str, branch: str, force: bool = False,
               local_ahead: Callable[[bytes], str | None] | None = None,
               folders: Sequence[Path] = ()) -> PullResult:
    """Copy the judge's files (and `folders`, the round history) from the tip of the state branch.

    `local_ahead(branch_state_bytes)` returns a description when the local state holds a round
    the branch does not (judged here, never pushed): then nothing is overwritten unless `force`.
    A folder becomes an exact copy of the branch's (files it lacks are removed), unless the branch
    has no such folder yet: then the local one stands and the next commit adds it.
    """
    git = _Git(repo)
    rel = _relative_all(repo, files)
    dirs = _relative_all(repo, folders)
    tip = fetch_tip(git, remote, branch, shallow=_is_shallow(git))
    if tip is None:
        git.run("update-ref", "-d", STATE_BASE_REF, check=False)
        return PullResult(None, (), ())
    if local_ahead is not None and not force:
        ahead = local_ahead(git.blob(tip, rel[0]) or b"")
        if ahead:
            raise CommitBackError(f"{ahead}; push it first (canary commit --reapply RESULTS.json...), or pass --force "
                                  "to discard it. Nothing was overwritten")
    base = _rev(git, STATE_BASE_REF)
    edited = [r for r in rel if _local_edit(git, base, r)] if base is not None else []
    if base is not None and edited and not force:
        raise CommitBackError(
            f"{', '.join(edited)} changed here since they were fetched from {branch} (at {base[:12]}) and were never "
            "pushed (a `canary lift`, `canary incident`, or a round judged here): fetching would overwrite that "
            "change. Push it (`canary commit`; after `canary judge`: canary commit "
            "--reapply RESULTS.json...), or pass --force to discard it and redo it on the fresh files. Nothing was "
            "overwritten")
    written, removed = _write_from(git, tip, rel)
    copies = tuple(_mirror_from(git, tip, d, skip=rel) for d in dirs)
    git.run("update-ref", STATE_BASE_REF, tip)
    return PullResult(tip, written, removed, copies)


def commit_to_state_branch(repo: Path, files: Sequence[Path], message: Callable[[], str], *, remote: str,
                           branch: str, people_branch: str | None = None, retries: int = DEFAULT_RETRIES,
                           reapply: Callable[[], int] | None = None, sleep: Callable[[float], None] = time.sleep,
                           inputs: Sequence[Path] = (), folders: Sequence[Path] = (),
                           append_only: Sequence[Path] = ()) -> CommitResult:
    """Commit `files` onto remote/branch (created as an orphan on first use); see the module docstring.

    `inputs`: the files the judge read from `people_branch` (the exclusion files). With `reapply`,
    when that branch moved one of them since, the round is re-applied on its fresh versions.
    `folders` (the round history): each commit carries them as they are on disk, additions and
    deletions; only what changed gets a new object, so a round adds one small file and the trees
    above it. A folder absent on disk is left as the branch has it.
    `append_only` (the audit log): when the only local change since the judge read the branch is
    lines appended to such a file (the record of an undelivered notification, after the round's
    commit), a moved branch needs no re-judging: the branch's files are taken and those lines
    appended to them again (a re-judge would find the round applied and drop the lines).
    """
    git = _Git(repo)
    rel = _relative_all(repo, files)
    dirs = _relative_all(repo, folders)
    appendable = _relative_all(repo, append_only)
    read_only = [r for r in (_inside(repo, f) for f in inputs) if r is not None] if reapply is not None else []
    watch_inputs = bool(read_only and people_branch)
    if watch_inputs:
        _refuse_local_edits(git, read_only)
    base = _rev(git, STATE_BASE_REF)
    shallow = _is_shallow(git)
    reapplied, unmoved, said = 0, 0, ""
    for attempt in Backoff(retries, STATE_BRANCH_PAUSES_S).tries(sleep):
        tip = fetch_tip(git, remote, branch, shallow=shallow)
        main_tip = fetch_tip(git, remote, people_branch) if watch_inputs and people_branch else None
        state_moved = _moved(git, base, tip, rel + dirs)
        inputs_moved = main_tip is not None and _differs(git, main_tip, read_only)
        source = tip or base  # the state the round must be re-applied on (None: first round, nothing to restore)
        appended = _appended_lines(git, base, rel, appendable, dirs) if state_moved else None
        if appended is not None and tip is not None:
            _replay_appended(git, tip, rel, appended, dirs)
            base = tip
            _set_base(git, base)
            reapplied += 1
        elif (state_moved or inputs_moved) and source is not None:
            if reapply is None:
                raise CommitBackError(_moved_message(branch, rel))
            if inputs_moved and main_tip is not None:
                _write_from(git, main_tip, read_only)
            _write_from(git, source, rel)
            for d in dirs:  # the round's own history file goes too: the re-applied judge records it again
                _mirror_from(git, source, d, skip=rel)
            base = source
            _set_base(git, base)
            reapplied += 1
            if reapply() != 0:
                raise CommitBackError("re-applying the round on the fresh state failed; nothing was pushed")
        if tip is None and not any((git.repo / r).is_file() for r in rel) and not any(
                _disk_files(git, d, rel) for d in dirs):
            return CommitResult(NOTHING, attempt, reapplied)  # no branch and no files: nothing to start it with
        tree = _tree_with(git, tip, rel, dirs)
        if tip is not None and tree == git.run("rev-parse", f"{tip}^{{tree}}").stdout.strip():
            return CommitResult(ALREADY_UPSTREAM if reapplied else NOTHING, attempt, reapplied)
        parents = ["-p", tip] if tip is not None else []
        commit = git.run("commit-tree", tree, *parents, "-F", "-", stdin=message()).stdout.strip()
        push = git.run("push", "--quiet", remote, f"{commit}:refs/heads/{branch}", check=False)
        if push.returncode == 0:
            _set_base(git, commit)
            return CommitResult(PUSHED, attempt, reapplied)
        said = git_said(push)
        unmoved = unmoved + 1 if fetch_tip(git, remote, branch, shallow=shallow) == tip else 0
        if unmoved >= 2:  # twice rejected while nobody else pushed: a rule, not a race
            raise CommitBackError(f"push to {remote} {branch} was rejected and the branch did not move: a rule or a "
                                  f"permission blocks it, not a concurrent push. Nothing was forced. git said: {said}")
    raise CommitBackError(f"push to {remote} {branch} still rejected after {retries} attempts; nothing was forced. "
                          f"git said: {said}")


def _moved_message(branch: str, rel: list[str]) -> str:
    """What to do when the branch moved under a change that cannot be replayed: said to a person
    (a `canary lift`, `canary incident`) first, since the workflow's judge always passes --reapply."""
    return (f"the state branch {branch} moved since your files were fetched (a round was committed meanwhile, or "
            f"someone else's change): nothing was pushed, and your change is still in {', '.join(rel)}. Redo it on "
            f"the fresh files: `canary fetch-state --force` (this discards the local change), then your `canary lift` "
            "or `canary incident` again, then `canary commit`. After `canary judge`, pass --reapply RESULTS.json... "
            "instead: the round is then re-applied on the fresh state")


def _appended_lines(git: _Git, base: str | None, rel: list[str], appendable: list[str],
                    dirs: list[str]) -> dict[str, bytes] | None:
    """The lines appended locally to append-only files since `base`, when that is the only change
    (the other files and folders as `base` has them); None otherwise."""
    if base is None or not appendable:
        return None
    appended: dict[str, bytes] = {}
    for r in rel:
        on_disk = (git.repo / r).read_bytes() if (git.repo / r).is_file() else None
        before = git.blob(base, r)
        if on_disk == before:
            continue
        if r not in appendable or on_disk is None or not on_disk.startswith(before or b"") or not on_disk.endswith(b"\n"):
            return None
        appended[r] = on_disk[len(before or b""):]
    if not appended or any(_folder_changes(git, base, d, skip=rel) for d in dirs):
        return None
    return appended


def _replay_appended(git: _Git, tip: str, rel: list[str], appended: Mapping[str, bytes], dirs: list[str]) -> None:
    """The tip's files and folders on disk, with the local lines appended again to theirs."""
    _write_from(git, tip, rel)
    for d in dirs:
        _mirror_from(git, tip, d, skip=rel)
    for r, lines in appended.items():
        theirs = git.blob(tip, r) or b""
        if theirs and not theirs.endswith(b"\n"):
            theirs += b"\n"
        atomic_write_bytes(git.repo / r, theirs + lines)


def _relative_all(repo: Path, files: Sequence[Path]) -> list[str]:
    rel = []
    for f in files:
        inside = _inside(repo, f)
        if inside is None:
            raise CommitBackError(f"{f} is outside the repository {repo}; the judge's files must live inside it")
        rel.append(inside)
    return rel


def _is_shallow(git: _Git) -> bool:
    return git.run("rev-parse", "--is-shallow-repository").stdout.strip() == "true"


def _rev(git: _Git, ref: str) -> str | None:
    found = git.run("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False)
    return found.stdout.strip() if found.returncode == 0 else None


def _set_base(git: _Git, commit: str | None) -> None:
    if commit is None:
        git.run("update-ref", "-d", STATE_BASE_REF, check=False)
    else:
        git.run("update-ref", STATE_BASE_REF, commit)


def _moved(git: _Git, base: str | None, tip: str | None, rel: list[str]) -> bool:
    """Did the branch change the judge's files since `base` (the state the judge read)?"""
    if tip is None or base == tip:
        return False  # not there (yet, or deleted by hand): the push (re)creates it from the judge's files
    if base is None:  # created meanwhile, or never fetched
        return any(git.run("cat-file", "-e", f"{tip}:{r}", check=False).returncode == 0 for r in rel)
    diff = git.run("diff", "--quiet", base, tip, "--", *rel, check=False)
    return diff.returncode != 0  # 1: changed; anything else (base unknown here): re-derive, never guess


def _local_edit(git: _Git, base: str, r: str) -> bool:
    """Does the local file differ from `base`'s version (a file neither has is no edit)?"""
    on_disk = (git.repo / r).read_bytes() if (git.repo / r).is_file() else None
    return on_disk is not None and on_disk != git.blob(base, r)


def _differs(git: _Git, commit: str, rel: list[str]) -> bool:
    """Do the files on disk differ from `commit`'s versions?"""
    for r in rel:
        on_disk = (git.repo / r).read_bytes() if (git.repo / r).is_file() else None
        if on_disk != git.blob(commit, r):
            return True
    return False


def _refuse_local_edits(git: _Git, rel: list[str]) -> None:
    changed = git.run("status", "--porcelain", "--untracked-files=no", "--", *rel).stdout.splitlines()
    if changed:
        raise CommitBackError(f"{', '.join(line[3:] for line in changed)} has uncommitted changes; commit or stash "
                              "them first: commit-back may replace them with the branch's versions")


def _write_from(git: _Git, commit: str | None, rel: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Make the files on disk equal `commit`'s versions (absent there: removed; no commit: left alone)."""
    written, removed = [], []
    if commit is None:
        return (), ()
    for r in rel:
        data = git.blob(commit, r)
        target = git.repo / r
        if data is None:
            if target.exists():
                target.unlink()
                removed.append(r)
            continue
        atomic_write_bytes(target, data)
        written.append(r)
    return tuple(written), tuple(removed)


def _tree_with(git: _Git, tip: str | None, rel: list[str], dirs: list[str]) -> str:
    """The tip's tree with the judge's files as they are on disk (a new branch also gets a README)."""
    with tempfile.TemporaryDirectory(prefix="canary-index-") as folder:
        env = {"GIT_INDEX_FILE": str(Path(folder) / "index")}
        git.run("read-tree", tip if tip is not None else "--empty", env=env)
        entries = [(r, git.run("hash-object", "-w", "--", str(git.repo / r)).stdout.strip())
                   for r in rel if (git.repo / r).is_file()]  # a missing file is never removed from the branch
        if tip is None:
            entries.append(("README.md", git.run("hash-object", "-w", "--stdin", stdin=STATE_BRANCH_README)
                            .stdout.strip()))
        for path, blob in entries:
            git.run("update-index", "--add", "--cacheinfo", f"100644,{blob},{path}", env=env)
        for d in dirs:
            changes = _folder_changes(git, tip, d, skip=rel)
            if changes:
                git.run_bytes("update-index", "-z", "--index-info", stdin=changes, env=env)
        return git.run("write-tree", env=env).stdout.strip()


# --- folders (the round history): thousands of small files, handled in a few git calls ----------

def _folder_changes(git: _Git, tip: str | None, folder: str, *, skip: Sequence[str]) -> bytes:
    """`update-index --index-info -z` input making the index's `folder` what is on disk: the files
    that are new or differ (written as objects here), and the tip's files the disk no longer has
    (the history's compaction deleted them). Unchanged files keep their objects, so a commit
    rewrites no file it did not change. A folder absent on disk changes nothing."""
    if not (git.repo / folder).is_dir():
        return b""
    on_disk = _disk_files(git, folder, skip)
    on_tip = _tree_entries(git, tip, folder, skip) if tip is not None else {}
    changed = [p for p, oid in zip(on_disk, _hash_files(git, on_disk), strict=True) if on_tip.get(p) != oid]
    written = _hash_files(git, changed, write=True)
    present = set(on_disk)
    lines = [f"0 {'0' * len(oid)}\t{p}" for p, oid in on_tip.items() if p not in present]  # mode 0: remove
    lines += [f"100644 {oid}\t{p}" for p, oid in zip(changed, written, strict=True)]
    return b"".join(line.encode("utf-8", "surrogateescape") + b"\0" for line in lines)


def _mirror_from(git: _Git, commit: str, folder: str, *, skip: Sequence[str]) -> FolderCopy:
    """Make the files under `folder` on disk exactly `commit`'s (written atomically, only those
    that differ); when `commit` has no such folder, leave the local one alone."""
    wanted = _tree_entries(git, commit, folder, skip)
    if not wanted:
        return FolderCopy(folder, 0, 0, 0)
    on_disk = _disk_files(git, folder, skip)
    have = dict(zip(on_disk, _hash_files(git, on_disk), strict=True))
    stale = [p for p, oid in wanted.items() if have.get(p) != oid]
    blobs = _read_blobs(git, [wanted[p] for p in stale])
    for p in stale:
        atomic_write_bytes(git.repo / p, blobs[wanted[p]])
    gone = [p for p in on_disk if p not in wanted]
    for p in gone:
        (git.repo / p).unlink()
    _remove_empty_folders(git.repo / folder)
    return FolderCopy(folder, len(wanted), len(stale), len(gone))


def _tree_entries(git: _Git, commit: str, folder: str, skip: Sequence[str]) -> dict[str, str]:
    """path -> blob id of every file under `folder` in `commit` (empty: no such folder)."""
    out = git.run_bytes("ls-tree", "-r", "-z", "--full-tree", commit, "--", folder)
    entries = {}
    for item in out.split(b"\0"):
        meta, _, raw = item.partition(b"\t")
        fields = meta.split()
        path = raw.decode("utf-8", "surrogateescape")
        if len(fields) == 3 and fields[1] == b"blob" and _under(path, [folder]) and path not in skip:
            entries[path] = fields[2].decode("ascii")
    return entries


def _disk_files(git: _Git, folder: str, skip: Sequence[str]) -> list[str]:
    """The regular files under `folder` on disk, repository-relative, sorted; symbolic links, dot
    files (an interrupted atomic write's leftovers) and the judge's single files are not part of it."""
    found = []
    for top, subdirs, names in os.walk(git.repo / folder):
        subdirs[:] = sorted(d for d in subdirs if not d.startswith("."))
        for name in names:
            path = Path(top) / name
            rel = path.relative_to(git.repo).as_posix()
            if not name.startswith(".") and path.is_file() and not path.is_symlink() and rel not in skip \
                    and "\n" not in rel:
                found.append(rel)
    return sorted(found)


def _hash_files(git: _Git, rel: list[str], *, write: bool = False) -> list[str]:
    """The blob ids of files (repository-relative paths), in one git call; `write` stores them too."""
    if not rel:
        return []
    out = git.run("hash-object", *(["-w"] if write else []), "--no-filters", "--stdin-paths",
                  stdin="".join(f"{r}\n" for r in rel)).stdout.split()
    if len(out) != len(rel):
        raise CommitBackError(f"git hash-object returned {len(out)} ids for {len(rel)} files")
    return out


def _read_blobs(git: _Git, oids: list[str]) -> dict[str, bytes]:
    """The contents of blobs by id, in one `git cat-file --batch` call."""
    unique = list(dict.fromkeys(oids))
    if not unique:
        return {}
    out = git.run_bytes("cat-file", "--batch", stdin="".join(f"{o}\n" for o in unique).encode("ascii"))
    blobs, at = {}, 0
    for oid in unique:
        end = out.index(b"\n", at)
        header = out[at:end].split()
        if len(header) != 3:
            raise CommitBackError(f"git cat-file: object {oid} is missing from this clone")
        size = int(header[2])
        blobs[oid] = out[end + 1:end + 1 + size]
        at = end + 1 + size + 1  # the content is followed by a newline
    return blobs


def _remove_empty_folders(root: Path) -> None:
    for top, _, _ in sorted(os.walk(root), key=lambda entry: -len(entry[0])):
        if Path(top) != root and not any(Path(top).iterdir()):
            Path(top).rmdir()


def history_folders(repo: Path, state: Path, history: Path, command: str) -> list[Path]:
    """The history folder to carry with the state: none, with a warning, when it lies outside the
    repository (git cannot keep it there; the history is evidence and never blocks the state)."""
    if is_inside(repo, history) or not is_inside(repo, state):  # a state outside fails on its own, clearly
        return [history]
    print(f"{command}: warning: the round history {history} is outside the repository {repo}, so it is not "
          "carried with the state; set paths.history inside the repository to keep it", file=sys.stderr)
    return []
