"""Folders (the round history) in git: thousands of small files, handled in a few git calls.

A folder on disk is the truth for its part of the tree: additions and deletions (the history's
compaction) are committed, and an unchanged file keeps its blob, so a round's commit adds one small
file and the trees above it. pull_state and a re-apply make the local folder an exact copy of the
branch's first. Safety rails: a folder absent on disk is never removed from the branch, a branch
without the folder leaves the local one standing, and dot files (an interrupted atomic write's
leftovers) are never committed.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from canary.state.commit_back import CommitBackError, under
from canary.state.git import Git
from core.store import atomic_write_bytes


@dataclass(frozen=True, slots=True)
class FolderCopy:
    """What copying one folder (the round history) from the branch did."""

    path: str
    files: int      # files the branch has there (0: the branch has no such folder; the local one stands)
    written: int    # of them written because the local copy lacked or differed from them
    removed: int    # local files removed because the branch does not have them (compacted elsewhere)


def folder_changes(git: Git, tip: str | None, folder: str, *, skip: Sequence[str]) -> bytes:
    """`update-index --index-info -z` input making the index's `folder` what is on disk: new or changed
    files written as objects, the tip's files the disk lacks removed; a folder absent on disk changes nothing."""
    if not (git.repo / folder).is_dir():
        return b""
    on_disk = disk_files(git, folder, skip)
    on_tip = tree_entries(git, tip, folder, skip) if tip is not None else {}
    changed = [p for p, oid in zip(on_disk, hash_files(git, on_disk), strict=True) if on_tip.get(p) != oid]
    written = hash_files(git, changed, write=True)
    present = set(on_disk)
    lines = [f"0 {'0' * len(oid)}\t{p}" for p, oid in on_tip.items() if p not in present]  # mode 0: remove
    lines += [f"100644 {oid}\t{p}" for p, oid in zip(changed, written, strict=True)]
    return b"".join(line.encode("utf-8", "surrogateescape") + b"\0" for line in lines)


def mirror_from(git: Git, commit: str, folder: str, *, skip: Sequence[str]) -> FolderCopy:
    """Make the files under `folder` on disk exactly `commit`'s (written atomically, only those
    that differ); when `commit` has no such folder, leave the local one alone."""
    wanted = tree_entries(git, commit, folder, skip)
    if not wanted:
        return FolderCopy(folder, 0, 0, 0)
    on_disk = disk_files(git, folder, skip)
    have = dict(zip(on_disk, hash_files(git, on_disk), strict=True))
    stale = [p for p, oid in wanted.items() if have.get(p) != oid]
    blobs = read_blobs(git, [wanted[p] for p in stale])
    for p in stale:
        atomic_write_bytes(git.repo / p, blobs[wanted[p]])
    gone = [p for p in on_disk if p not in wanted]
    for p in gone:
        (git.repo / p).unlink()
    remove_empty_folders(git.repo / folder)
    return FolderCopy(folder, len(wanted), len(stale), len(gone))


REGULAR_MODES = (b"100644", b"100755")
_KINDS = {b"120000": "a symbolic link", b"160000": "a submodule", b"040000": "a folder"}


def irregular_entries(git: Git, commit: str, files: Sequence[str], folders: Sequence[str]) -> list[str]:
    """The entries of `commit` that are not what canary writes (a judge's file that is no regular file, a
    folder that is no folder, a link or submodule under one), each named with what it is. Written out, a
    link's blob is its target's name ("/etc/passwd") and a submodule has none: refused before anything is
    written (issue 31)."""
    found: list[tuple[bytes, bytes]] = []
    for path in files:
        found += [(m, p) for m, p in _listing(git, commit, path) if m not in REGULAR_MODES]
    for folder in folders:
        found += [(m, p) for m, p in _listing(git, commit, folder) if m != b"040000"]
        found += [(m, p) for m, p in _listing(git, commit, folder, recursive=True) if m not in REGULAR_MODES
                  and p != folder.encode("utf-8", "surrogateescape")]
    out: list[str] = []
    for mode, raw in found:
        entry = f"{raw.decode('utf-8', 'surrogateescape')!r} ({_KINDS.get(mode, 'mode ' + mode.decode('ascii'))})"
        if entry not in out:
            out.append(entry)
    return out


def _listing(git: Git, commit: str, path: str, *, recursive: bool = False) -> list[tuple[bytes, bytes]]:
    """(mode, path) of `path` in `commit` (with `recursive`: of everything under it)."""
    out = git.run_bytes("ls-tree", *(["-r"] if recursive else []), "-z", "--full-tree", commit, "--", path)
    entries = []
    for item in out.split(b"\0"):
        meta, _, raw = item.partition(b"\t")
        fields = meta.split()
        if len(fields) == 3:
            entries.append((fields[0], raw))
    return entries


def tree_entries(git: Git, commit: str, folder: str, skip: Sequence[str]) -> dict[str, str]:
    """path -> blob id of every file under `folder` in `commit` (empty: no such folder)."""
    out = git.run_bytes("ls-tree", "-r", "-z", "--full-tree", commit, "--", folder)
    entries = {}
    for item in out.split(b"\0"):
        meta, _, raw = item.partition(b"\t")
        fields = meta.split()
        path = raw.decode("utf-8", "surrogateescape")
        if len(fields) == 3 and fields[1] == b"blob" and under(path, [folder]) and path not in skip:
            entries[path] = fields[2].decode("ascii")
    return entries


def disk_files(git: Git, folder: str, skip: Sequence[str]) -> list[str]:
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


def hash_files(git: Git, rel: list[str], *, write: bool = False) -> list[str]:
    """The blob ids of files (repository-relative paths), in one git call; `write` stores them too."""
    if not rel:
        return []
    out = git.run("hash-object", *(["-w"] if write else []), "--no-filters", "--stdin-paths",
                  stdin="".join(f"{r}\n" for r in rel)).stdout.split()
    if len(out) != len(rel):
        raise CommitBackError(f"git hash-object returned {len(out)} ids for {len(rel)} files")
    return out


def read_blobs(git: Git, oids: list[str]) -> dict[str, bytes]:
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


def remove_empty_folders(root: Path) -> None:
    for top, _, _ in sorted(os.walk(root), key=lambda entry: -len(entry[0])):
        if Path(top) != root and not any(Path(top).iterdir()):
            Path(top).rmdir()
