"""Commit the judge's files (state, audit log, round history) and push them, safely, with retries.

One layout (why a branch of its own: docs/workflow.md): the judge's files on their own branch
(paths.state_branch, canary/state/state_branch.py), git run through canary/state/git.py, the history
carried with git_folders.py. This module holds the result, the error, the commit message (built from
validated tags, never free text) and the judge's files' paths in the repository. A push that stays
rejected ends with git's own message.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.errors import CanaryError
from core.tags import is_valid_round_id, is_valid_tag
from core.times import fmt_time
from judge.suspension.decisions import RoundDecisions

DEFAULT_RETRIES = 5
MAX_BODY_LINES = 40              # a round with more decisions says "... and N more"
MAX_SUBJECT_ROUND_ID = 80
PUSHED, NOTHING, ALREADY_UPSTREAM = "pushed", "nothing to commit", "already applied upstream"


class CommitBackError(CanaryError, RuntimeError):
    """Commit-back gave up; the message says why and what was left as it was."""


@dataclass(frozen=True, slots=True)
class CommitResult:
    status: str
    attempts: int
    reapplied: int


def _tag(value: Any) -> str:
    return value if value == "*" or is_valid_tag(value) else "<invalid tag>"


def commit_message(doc: RoundDecisions | None) -> str:
    """Subject and body naming the decisions; only validated tags and round ids (the record holds any
    string its file held there; its mode and actions are typed, so decisions.json's reader refused another)."""
    if doc is None:
        return "canary: update judge state"
    shown = doc.round_id if is_valid_round_id(doc.round_id) else "<invalid round id>"
    if len(shown) > MAX_SUBJECT_ROUND_ID:
        shown = shown[: MAX_SUBJECT_ROUND_ID - 3] + "..."
    lines = [f"canary: round {shown} ({doc.mode}): {len(doc.decisions)} decision(s)", ""]
    for d in doc.decisions[:MAX_BODY_LINES]:
        line = f"- {d.action.value} {_tag(d.provider)} ({_tag(d.model)})"
        if d.rung is not None:
            line += f" rung {d.rung}"
        if d.until is not None:
            line += f" until {fmt_time(d.until)}"
        lines.append(line)
    if len(doc.decisions) > MAX_BODY_LINES:
        lines.append(f"- ... and {len(doc.decisions) - MAX_BODY_LINES} more (see state/audit.jsonl)")
    return "\n".join(lines).rstrip() + "\n"


def is_inside(repo: Path, path: Path) -> bool:
    """Does `path` live inside the repository (so that it can be committed)?"""
    return inside(repo, path) is not None


def inside(repo: Path, path: Path) -> str | None:
    """`path` relative to `repo`, or None when it lives outside the repository."""
    try:
        return str(Path(path).resolve().relative_to(Path(repo).resolve()))
    except ValueError:
        return None


def relative_all(repo: Path, files: Sequence[Path]) -> list[str]:
    """Each file relative to `repo`; CommitBackError for one outside it (git cannot commit it)."""
    rel = []
    for f in files:
        found = inside(repo, f)
        if found is None:
            raise CommitBackError(f"{f} is outside the repository {repo}; the judge's files must live inside it")
        rel.append(found)
    return rel


def under(path: str, folders: Sequence[str]) -> bool:
    """Is the repository-relative `path` one of `folders` or inside one?"""
    return any(path == d or path.startswith(d + "/") for d in folders)


def history_folders(repo: Path, state: Path, history: Path, command: str) -> list[Path]:
    """The history folder to carry with the state: none, with a warning, when it lies outside the repository
    (the history is evidence and never blocks the state)."""
    if is_inside(repo, history) or not is_inside(repo, state):  # a state outside fails on its own, clearly
        return [history]
    print(f"{command}: warning: the round history {history} is outside the repository {repo}, so it is not "
          "carried with the state; set paths.history inside the repository to keep it", file=sys.stderr)
    return []
