"""The judge's files on their own branch (the default, `canary-state`): fetch them, commit them.

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
                      notification's record), or main moved an exclusion file with that the only
                      local change: take the tip's files, append those lines again;
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
"""

from __future__ import annotations

import base64
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
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
)
from canary.state.git import Git, fetch_tip, git_said, is_shallow, rev
from canary.state.git_folders import FolderCopy, disk_files, folder_changes, irregular_entries, mirror_from
from core.retry import Backoff, Tries
from core.store import atomic_write_bytes

STATE_BASE_REF = "refs/canary/state-base"   # the state-branch commit whose files the judge read
# The pause after the nth rejected push, to let the other pusher finish (or a passing fault clear):
# 2 s per attempt, at most 10.
STATE_BRANCH_PAUSES_S = (2.0, 4.0, 6.0, 8.0, 10.0)
STATE_BRANCH_README = """# The canary's state

Machine-written: `canary judge` commits the judge's state (`state/canary-state.json`) and its
append-only audit log (`state/audit.jsonl`) here after every round. People's files (the
exclusion YAML, `canary.yaml`) live on the default branch, under review. Never force-push this
branch; `canary lift` and `canary incident` users commit here with `canary commit`.
"""


@dataclass(frozen=True, slots=True)
class PullResult:
    tip: str | None            # the state-branch commit copied; None: the branch does not exist yet
    written: tuple[str, ...]   # files written from it
    removed: tuple[str, ...]   # local files removed because the branch does not have them
    folders: tuple[FolderCopy, ...] = ()


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
    asked = Git(repo).run("ls-remote", "--exit-code", "--heads", remote, f"refs/heads/{branch}", check=False, env=env)
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
    git = Git(repo)
    rel = relative_all(repo, files)
    dirs = relative_all(repo, folders)
    tip = fetch_tip(git, remote, branch, shallow=is_shallow(git))
    if tip is None:
        git.run("update-ref", "-d", STATE_BASE_REF, check=False)
        return PullResult(None, (), ())
    if local_ahead is not None and not force:
        ahead = local_ahead(git.blob(tip, rel[0]) or b"")
        if ahead:
            raise CommitBackError(f"{ahead}; push it first (canary commit --reapply RESULTS.json...), or pass --force "
                                  "to discard it. Nothing was overwritten")
    base = rev(git, STATE_BASE_REF)
    edited = [r for r in rel if _local_edit(git, base, r)] if base is not None else []
    if base is not None and edited and not force:
        raise CommitBackError(
            f"{', '.join(edited)} changed here since they were fetched from {branch} (at {base[:12]}) and were never "
            "pushed (a `canary lift`, `canary incident`, or a round judged here): fetching would overwrite that "
            "change. Push it (`canary commit`; after `canary judge`: canary commit "
            "--reapply RESULTS.json...), or pass --force to discard it and redo it on the fresh files. Nothing was "
            "overwritten")
    irregular = irregular_entries(git, tip, rel, dirs)
    if irregular:
        raise CommitBackError(
            f"the state branch {branch} (at {tip[:12]}) holds what canary never writes: "
            f"{', '.join(irregular[:5])}{f' and {len(irregular) - 5} more' if len(irregular) > 5 else ''}. "
            "Only regular files are taken from it; nothing was written. Remove them from the branch "
            "(a commit on it) and fetch again")
    written, removed = _write_from(git, tip, rel)
    copies = tuple(mirror_from(git, tip, d, skip=rel) for d in dirs)
    git.run("update-ref", STATE_BASE_REF, tip)
    return PullResult(tip, written, removed, copies)


@dataclass(frozen=True, slots=True)
class Carried:
    """What a commit carries (commit_to_state_branch says how each is committed)."""

    files: Sequence[Path]
    folders: Sequence[Path] = ()
    append_only: Sequence[Path] = ()
    inputs: Sequence[Path] = ()


def commit_to_state_branch(repo: Path, carried: Carried, message: Callable[[], str], *, remote: str, branch: str,
                           people_branch: str | None = None, reapply: Callable[[], None] | None = None,
                           tries: Tries | None = None) -> CommitResult:
    """Commit `carried.files` onto remote/branch (created as an orphan on first use); see the module
    docstring. `tries`: the pushes and the pauses between them (default: DEFAULT_RETRIES, time.sleep).

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
    git, tries = Git(repo), tries or Backoff(DEFAULT_RETRIES, STATE_BRANCH_PAUSES_S).tries(time.sleep)
    rel, dirs, appendable = (relative_all(repo, p) for p in (carried.files, carried.folders, carried.append_only))
    read_only = [r for r in (inside(repo, f) for f in carried.inputs) if r is not None] if reapply else []
    watch_inputs = bool(read_only and people_branch)
    if watch_inputs:
        _refuse_local_edits(git, read_only)
    base, shallow = rev(git, STATE_BASE_REF), is_shallow(git)
    reapplied, unmoved, said = 0, 0, ""
    for attempt in tries:
        tip = fetch_tip(git, remote, branch, shallow=shallow)
        main_tip = fetch_tip(git, remote, people_branch) if watch_inputs and people_branch else None
        state_moved = _moved(git, base, tip, rel + dirs)
        inputs_moved = main_tip is not None and _differs(git, main_tip, read_only)
        source = tip or base  # the state the round must be re-applied on (None: first round, nothing to restore)
        # Only lines appended to the audit log since the round's commit: nothing to re-judge whatever
        # moved (`append_only` above), so the tip's files get those lines appended again.
        appended = _appended_lines(git, base, rel, appendable, dirs) if state_moved or inputs_moved else None
        if appended is not None and tip is not None:
            _replay_appended(git, tip, rel, appended, dirs)
            base = tip
            _set_base(git, base)
            reapplied += 1
        elif (state_moved or inputs_moved) and source is not None:
            if reapply is None:
                raise CommitBackError(_moved_message(branch, rel))
            _restore(git, source, rel, dirs, main_tip if inputs_moved else None, read_only)
            base = source
            _set_base(git, base)
            reapplied += 1
            reapply()  # raises CommitBackError when the judge refuses: nothing is pushed then
        if tip is None and not any((git.repo / r).is_file() for r in rel) and not any(
                disk_files(git, d, rel) for d in dirs):
            return CommitResult(NOTHING, attempt, reapplied)  # no branch and no files: nothing to start it with
        done, said = _commit(git, tip, rel, dirs, message, remote, branch)
        if done is not None:
            return CommitResult(ALREADY_UPSTREAM if done == NOTHING and reapplied else done, attempt, reapplied)
        unmoved = unmoved + 1 if fetch_tip(git, remote, branch, shallow=shallow) == tip else 0
        if unmoved >= 2:  # twice rejected while nobody else pushed: a rule, not a race
            raise CommitBackError(f"push to {remote} {branch} was rejected and the branch did not move: a rule or a "
                                  f"permission blocks it, not a concurrent push. Nothing was forced. git said: {said}")
    raise CommitBackError(f"push to {remote} {branch} still rejected after {tries.backoff.attempts} attempts; "
                          f"nothing was forced. git said: {said}")


def _restore(git: Git, source: str, rel: list[str], dirs: list[str], inputs_from: str | None,
             read_only: list[str]) -> None:
    """The files and folders as `source` has them (and the inputs as `inputs_from` has them), to re-apply
    the round on: the round's own history file goes too, the re-applied judge records it again."""
    if inputs_from is not None:
        _write_from(git, inputs_from, read_only)
    _write_from(git, source, rel)
    for d in dirs:
        mirror_from(git, source, d, skip=rel)


def _commit(git: Git, tip: str | None, rel: list[str], dirs: list[str], message: Callable[[], str], remote: str,
            branch: str) -> tuple[str | None, str]:
    """Commit the files and folders onto `tip` and push: (PUSHED, ""), (NOTHING, "") when `tip` holds
    them already, or (None, what git said) when the push was rejected."""
    tree = _tree_with(git, tip, rel, dirs)
    if tip is not None and tree == git.run("rev-parse", f"{tip}^{{tree}}").stdout.strip():
        return NOTHING, ""
    parents = ["-p", tip] if tip is not None else []
    commit = git.run("commit-tree", tree, *parents, "-F", "-", stdin=message()).stdout.strip()
    push = git.run("push", "--quiet", remote, f"{commit}:refs/heads/{branch}", check=False)
    if push.returncode == 0:
        _set_base(git, commit)
        return PUSHED, ""
    return None, git_said(push)


def _moved_message(branch: str, rel: list[str]) -> str:
    """What to do when the branch moved under a change that cannot be replayed: said to a person
    (a `canary lift`, `canary incident`) first, since the workflow's judge always passes --reapply."""
    return (f"the state branch {branch} moved since your files were fetched (a round was committed meanwhile, or "
            f"someone else's change): nothing was pushed, and your change is still in {', '.join(rel)}. Redo it on "
            f"the fresh files: `canary fetch-state --force` (this discards the local change), then your `canary lift` "
            "or `canary incident` again, then `canary commit`. After `canary judge`, pass --reapply RESULTS.json... "
            "instead: the round is then re-applied on the fresh state")


def _appended_lines(git: Git, base: str | None, rel: list[str], appendable: list[str],
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
        if (r not in appendable or on_disk is None
                or not on_disk.startswith(before or b"") or not on_disk.endswith(b"\n")):
            return None
        appended[r] = on_disk[len(before or b""):]
    if not appended or any(folder_changes(git, base, d, skip=rel) for d in dirs):
        return None
    return appended


def _replay_appended(git: Git, tip: str, rel: list[str], appended: Mapping[str, bytes], dirs: list[str]) -> None:
    """The tip's files and folders on disk, with the local lines appended again to theirs."""
    _write_from(git, tip, rel)
    for d in dirs:
        mirror_from(git, tip, d, skip=rel)
    for r, lines in appended.items():
        theirs = git.blob(tip, r) or b""
        if theirs and not theirs.endswith(b"\n"):
            theirs += b"\n"
        atomic_write_bytes(git.repo / r, theirs + lines)


def _set_base(git: Git, commit: str | None) -> None:
    if commit is None:
        git.run("update-ref", "-d", STATE_BASE_REF, check=False)
    else:
        git.run("update-ref", STATE_BASE_REF, commit)


def _moved(git: Git, base: str | None, tip: str | None, rel: list[str]) -> bool:
    """Did the branch change the judge's files since `base` (the state the judge read)?"""
    if tip is None or base == tip:
        return False  # not there (yet, or deleted by hand): the push (re)creates it from the judge's files
    if base is None:  # created meanwhile, or never fetched
        return any(git.run("cat-file", "-e", f"{tip}:{r}", check=False).returncode == 0 for r in rel)
    diff = git.run("diff", "--quiet", base, tip, "--", *rel, check=False)
    return diff.returncode != 0  # 1: changed; anything else (base unknown here): re-derive, never guess


def _local_edit(git: Git, base: str, r: str) -> bool:
    """Does the local file differ from `base`'s version (a file neither has is no edit)?"""
    on_disk = (git.repo / r).read_bytes() if (git.repo / r).is_file() else None
    return on_disk is not None and on_disk != git.blob(base, r)


def _differs(git: Git, commit: str, rel: list[str]) -> bool:
    """Do the files on disk differ from `commit`'s versions?"""
    for r in rel:
        on_disk = (git.repo / r).read_bytes() if (git.repo / r).is_file() else None
        if on_disk != git.blob(commit, r):
            return True
    return False


def _refuse_local_edits(git: Git, rel: list[str]) -> None:
    changed = git.run("status", "--porcelain", "--untracked-files=no", "--", *rel).stdout.splitlines()
    if changed:
        raise CommitBackError(f"{', '.join(line[3:] for line in changed)} has uncommitted changes; commit or stash "
                              "them first: commit-back may replace them with the branch's versions")


def _write_from(git: Git, commit: str | None, rel: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
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


def _tree_with(git: Git, tip: str | None, rel: list[str], dirs: list[str]) -> str:
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
            changes = folder_changes(git, tip, d, skip=rel)
            if changes:
                git.run_bytes("update-index", "-z", "--index-info", stdin=changes, env=env)
        return git.run("write-tree", env=env).stdout.strip()
