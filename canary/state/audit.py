"""state/audit.jsonl: the append-only log of every decision (JSON Lines; docs/file-formats.md).

The line is declared once, `AuditLine`: every writer builds one, `append` writes it (keys sorted)
and `read` is the log's one reader. Lines are appended with one os.write and an fsync, which can
still be cut short (a full disk, or SIGKILL: Linux stops a regular-file write at a page boundary
when a fatal signal is pending); so `append` first ends a torn fragment with a newline, and the
readers skip and count lines that do not parse.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

import msgspec
from msgspec import UNSET, Meta, UnsetType

from core.errors import InputError
from core.field_rules import written
from core.policy import Mode
from core.results import RejectedInput
from core.schema import Invalid, read_as
from core.store import StoreError
from core.times import TimeFormatError, fmt_time, parse_time
from judge.suspension.card import Card
from judge.suspension.decisions import Decision, DecisionsError, Evidence, read_decision

REJECTED_INPUT = "rejected_input"
WEBHOOK_FAILED = "webhook_failed"


class AuditError(InputError):
    """An audit line of another shape; the message names the file, the line and the key."""


class AuditLine(msgspec.Struct, frozen=True):
    """One line of state/audit.jsonl: a decision as decisions.json writes it (judge/suspension/decisions.py
    Decision) with when and where, or a warning's (so `action` and `rule` are plain strings). Only `time` and `action`
    are required of a line read; the UNSET fields are left out of a line that has none."""

    time: str  # when it was decided (ISO 8601, UTC)
    action: Annotated[str, Meta(min_length=1)]  # an Action's value, or a warning's: rejected_input, ...
    round_id: str | None = None  # the round it belongs to (None: a command's, as `canary lift`)
    mode: Mode | None = None  # observe | enforce
    model: str = ""
    provider: str = ""
    rule: str = ""
    reason: str = ""
    evidence: tuple[Evidence, ...] = ()
    until: str | None | UnsetType = UNSET  # a suspension's end (null: an older writer's "none")
    rung: int | None | UnsetType = UNSET  # a suspension's rung
    card: tuple[Card, ...] | UnsetType = UNSET  # the evidence cards (suspend, would_suspend, floor_held, restore)
    weak_evidence: bool | UnsetType = UNSET  # beside `card`: no card shows the host significantly worse
    keys: tuple[str, ...] | UnsetType = UNSET  # a digest_sent line's digest keys
    by: str | UnsetType = UNSET  # who ran the command (`canary lift --by`)

    def __post_init__(self) -> None:
        for key, value in (("time", self.time), ("until", self.until)):
            if isinstance(value, str):
                try:
                    parse_time(value, key)
                except TimeFormatError:
                    raise Invalid(key, f"expected an ISO 8601 time like 2026-11-29T22:30:00Z, got {value!r}") from None

    @property
    def at(self) -> datetime:
        """`time` as a time (a line whose time does not read is no AuditLine)."""
        return parse_time(self.time, "time")

    @property
    def until_at(self) -> datetime | None:
        """`until` as a time; None when the line has none (or null: an older writer's "none")."""
        return parse_time(self.until, "until") if isinstance(self.until, str) else None

    def decision(self) -> Decision | None:
        """The decision the line records, or None: a warning's line (rejected_input, ...) or one
        that reads as no decision (an action or rule this version does not know, hand-edited)."""
        try:
            return read_decision(msgspec.to_builtins(self))
        except DecisionsError:
            return None


@dataclass(frozen=True, slots=True)
class AuditLog:
    """The audit log as `read` found it."""

    lines: tuple[AuditLine, ...]  # every line that reads as an AuditLine, in the log's order
    torn: int = 0  # lines that are not a JSON object (a torn append: see the module docstring)
    set_aside: tuple[str, ...] = ()  # JSON objects that are no AuditLine: each names the file, the line and the key


def decision_lines(decisions: Iterable[Decision], *, round_id: str | None, mode: Mode,
                   now: datetime, by: str | None = None) -> list[AuditLine]:
    """The audit lines of decisions: the decision as decisions.json writes it, with when, where (and who)."""
    when = {"time": _time_text(now), "round_id": round_id, "mode": mode, **({} if by is None else {"by": by})}
    return [msgspec.convert({**written(d), **when}, AuditLine) for d in decisions]


def rejected_lines(rejected: Iterable[RejectedInput], *, round_id: str, mode: Mode,
                   now: datetime) -> list[AuditLine]:
    return [warning_line(now, round_id, mode, action=REJECTED_INPUT, rule="input_validation", reason=r.problem,
                         model=r.model, provider=r.provider) for r in rejected]


def warning_line(now: datetime, round_id: str | None, mode: Mode | None, *, action: str, rule: str, reason: str,
                 model: str = "*", provider: str = "*") -> AuditLine:
    """A line that is no decision (a rejected input, a notification not delivered, ...)."""
    return AuditLine(time=_time_text(now), round_id=round_id, mode=mode, model=model, provider=provider, action=action,
                     rule=rule, reason=reason)


def _time_text(now: datetime) -> str:
    text = fmt_time(now)
    assert text is not None
    return text


def encoded(line: AuditLine) -> str:
    """The line as the log holds it: keys sorted, `", "` and `": "` between them, UTF-8 kept."""
    return json.dumps(written(line), sort_keys=True, ensure_ascii=False)


def read_line(raw: Any, where: str) -> AuditLine:
    """A decoded line as an AuditLine (a key this version does not know skipped), or AuditError
    naming `where` (`<file>:<line number>`) and the dotted key."""
    return read_as(raw, AuditLine, source=where, error=AuditError, ignore_unknown_keys=True)


def check_appendable(path: Path) -> None:
    """StoreError unless the audit log is absent or a regular file: a planted symbolic link (or a FIFO)
    would make every command append to whatever it points at, with the runner's rights. Called before
    anything is written, so a refusal leaves nothing half done."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        raise StoreError(_not_regular(Path(path), "a symbolic link" if stat.S_ISLNK(mode) else "not a regular file"))


def _not_regular(path: Path, kind: str) -> str:
    return (f"{path}: the audit log is {kind}; canary appends only to a regular file. Nothing was written: "
            "replace it with the real log (or remove it) and run the command again")


def append(path: Path, lines: Iterable[AuditLine]) -> None:
    """Append lines with a single write and an fsync; StoreError if `path` is not a regular file
    (never followed through a symbolic link)."""
    data = "".join(encoded(line) + "\n" for line in lines)
    if not data:
        return
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise StoreError(_not_regular(path, "a symbolic link")) from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise StoreError(_not_regular(path, "not a regular file"))
        payload = data.encode("utf-8")
        if _ends_mid_line(fd):
            payload = b"\n" + payload  # a torn record from an interrupted append: leave it on its own line
        written = os.write(fd, payload)
        while written < len(payload):  # a short write on a full pipe/disk: finish it, never drop a decision
            written += os.write(fd, payload[written:])
        os.fsync(fd)
    finally:
        os.close(fd)


# How far back from the end of the log a re-run looks for its own round's lines: they can only
# be the last ones written (rounds are applied in order), so the tail is enough.
TAIL_BYTES = 1 << 20


def append_round(path: Path, lines: list[AuditLine]) -> None:
    """Append one round's lines, skipping those an interrupted earlier run of it already wrote (the judge
    appends them before it replaces the state file, so a re-run after a crash in between would log twice)."""
    round_ids = {line.round_id for line in lines}
    seen = {_key(line) for line in _tail_lines(Path(path)) if line.round_id in round_ids}
    append(path, [line for line in lines if _key(line) not in seen])


def _key(line: AuditLine) -> tuple[str | None, ...]:
    return line.round_id, line.model, line.provider, line.action, line.rule, line.reason


def _tail_lines(path: Path) -> list[AuditLine]:
    try:
        with open(path, "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(0, size - TAIL_BYTES))
            raw = handle.read()
    except FileNotFoundError:
        return []
    if size > TAIL_BYTES:
        raw = raw.partition(b"\n")[2]  # the first line is cut
    return [line for _, line in _parsed(raw, str(path)) if isinstance(line, AuditLine)]


# What `_parsed` finds on a line that is not a JSON object (every reader counts both as torn;
# `canary validate` tells a torn last line from one that is JSON but no object).
_NOT_JSON = "not JSON"
_NOT_AN_OBJECT = "not a JSON object"
_DECODER = msgspec.json.Decoder(AuditLine, strict=True)


def _parsed(raw: bytes, source: str) -> Iterator[tuple[int, AuditLine | AuditError | str]]:
    """Each non-blank line's number and what it reads as: an AuditLine, an AuditError (naming the line and
    the key), or _NOT_JSON / _NOT_AN_OBJECT. msgspec decodes straight into the Struct (a year's log is read
    whole); only a line it refuses is read the long way, which says why (tests/canary/state/test_audit_line.py)."""
    for number, line in enumerate(raw.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            yield number, _DECODER.decode(line)
            continue
        except (msgspec.DecodeError, ValueError, RecursionError):
            pass
        try:
            record = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            yield number, _NOT_JSON
            continue
        if not isinstance(record, dict):
            yield number, _NOT_AN_OBJECT
            continue
        try:
            yield number, read_line(record, f"{source}:{number}")
        except AuditError as exc:
            yield number, exc


def _ends_mid_line(fd: int) -> bool:
    size = os.fstat(fd).st_size
    return size > 0 and os.pread(fd, 1, size - 1) != b"\n"


def problems(path: Path) -> tuple[list[str], list[str]]:
    """What `canary validate` says of the audit log: (failures, notes), each naming the file and line. A
    last line cut short is a note (the torn append the format expects); any other unreadable line fails."""
    try:
        check_appendable(path)
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        return [], []
    except StoreError as exc:
        return [str(exc)], []
    fails, notes = [], []
    last = raw.count(b"\n") + 1
    for number, line in _parsed(raw, str(path)):
        if line == _NOT_JSON and number == last:   # no newline after it
            notes.append(f"{path}:{number}: the last line is cut short (a torn append); every reader skips it")
        elif isinstance(line, str):
            fails.append(f"{path}:{number}: not a JSON object")
        elif isinstance(line, AuditError):
            fails.append(str(line))
    return fails, notes


def read(path: Path) -> AuditLog:
    """The audit log's lines in order, the torn ones counted and those of another shape set aside, each
    named. Never refuses: the log is only appended to, and its readers answer from what reads."""
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        return AuditLog(())
    lines: list[AuditLine] = []
    torn = 0
    set_aside: list[str] = []
    for _, line in _parsed(raw, str(path)):
        if isinstance(line, AuditLine):
            lines.append(line)
        elif isinstance(line, AuditError):
            set_aside.append(str(line))
        else:
            torn += 1
    return AuditLog(tuple(lines), torn, tuple(set_aside))
