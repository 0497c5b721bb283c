"""History on disk (I/O): append a round, compact old days, read a span back.

The layout, and why no file is rewritten per round (git stores every version): docs/file-formats.md,
the round history. Recording is idempotent: the file name comes from the round id, and a round
already in a day file is not written again. Every write is atomic, and a day file is written before
the round files it replaces are deleted, so a crash in between only leaves files the next compaction
removes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

from canary.history.aggregate import DayAggregate, aggregate_day
from canary.history.files import (
    DayColumns,
    RoundColumns,
    decode_day,
    decode_day_columns,
    decode_round,
    decode_round_columns,
    encode_day,
    encode_round,
)
from canary.history.rows import HistoryError, RoundRecord
from core.store import atomic_write_bytes
from core.times import TimeFormatError, parse_date

# Full detail for the longest window the commands show (30 days) plus margin; older: day files.
DETAIL_DAYS = 35
SUFFIX = ".xz"


DEFAULT_HISTORY = Path("state/history")   # core/config.py's default of paths.history
FOLDER = "history"


def history_root(paths: Any) -> Path:
    """paths.history, or, left at its default, a `history` folder next to the state file (a judge given
    another `--state` keeps its history there too, so a copy or a simulator round never writes the real one)."""
    configured = Path(paths.history)
    return Path(paths.state).parent / FOLDER if configured == DEFAULT_HISTORY else configured


@dataclass(frozen=True, slots=True)
class Recorded:
    """What record_round did."""

    path: Path
    written: bool                  # False: the round was already in the history
    compacted: tuple[str, ...] = ()  # days folded into day files by this call


def round_path(root: Path, record: RoundRecord) -> Path:
    t = record.started_at
    digest = hashlib.sha256(record.round_id.encode("utf-8")).hexdigest()[:12]
    return Path(root) / "rounds" / f"{t:%Y-%m}" / f"{t:%d}" / f"{t:%H%M%S}Z-{digest}{SUFFIX}"


def day_path(root: Path, day: str) -> Path:
    return Path(root) / "days" / day[:4] / f"{day}{SUFFIX}"


def record_round(root: Path, record: RoundRecord, *, now: datetime, detail_days: int = DETAIL_DAYS,
                 compact_days: bool = True) -> Recorded:
    """Append one round (unless already recorded), then (`compact_days`) compact the days past the window."""
    path = round_path(root, record)
    day = record.started_at.date().isoformat()
    day_file = day_path(root, day)
    already = path.exists() or (day_file.exists() and record.round_id in read_day(day_file).round_ids)
    if not already:
        atomic_write_bytes(path, encode_round(record))
    return Recorded(path, not already, compact(root, now=now, detail_days=detail_days) if compact_days else ())


def compact(root: Path, *, now: datetime, detail_days: int = DETAIL_DAYS) -> tuple[str, ...]:
    """Fold every day older than `detail_days` before `now` into its day file; the days done."""
    cutoff = (now - timedelta(days=detail_days)).date()
    done = []
    for day, folder in _day_folders(root):
        if day >= cutoff:
            continue
        files = sorted(folder.glob(f"*{SUFFIX}"))
        day_file = day_path(root, day.isoformat())
        previous = read_day(day_file) if day_file.exists() else None
        records = [read_round(f) for f in files]
        merged = aggregate_day(day.isoformat(), records, previous)
        if previous is None or merged.round_ids != previous.round_ids:
            atomic_write_bytes(day_file, encode_day(merged))
        for f in files:
            f.unlink()
        _remove_empty(folder, stop=Path(root))
        done.append(day.isoformat())
    return tuple(done)


def read_round(path: Path) -> RoundRecord:
    return decode_round(_read(path), str(path))


def read_day(path: Path) -> DayAggregate:
    return decode_day(_read(path), str(path))


@dataclass(frozen=True, slots=True)
class Span:
    """The history of a span of days, as the query database loads it: full-detail rounds (their cases
    as columns) and compacted days."""

    rounds: tuple[RoundColumns, ...]
    days: tuple[DayColumns, ...]


def read_span(root: Path, since: date | None = None) -> Span:
    """Every round and day file from `since` (a UTC day; None: everything) on."""
    days = [decode_day_columns(_read(path), str(path)) for path in sorted(Path(root).glob(f"days/*/*{SUFFIX}"))
            if since is None or path.name[:10] >= since.isoformat()]
    compacted = {d.day: frozenset(r.round_id for r in d.rounds) for d in days}
    rounds = []
    for day, folder in _day_folders(root):
        if since is not None and day < since:
            continue
        for path in sorted(folder.glob(f"*{SUFFIX}")):
            record = decode_round_columns(_read(path), str(path))
            if record.round_id not in compacted.get(day.isoformat(), frozenset()):  # a crash's leftover
                rounds.append(record)
    return Span(tuple(rounds), tuple(days))


def _day_folders(root: Path) -> Iterator[tuple[date, Path]]:
    for folder in sorted(Path(root).glob("rounds/*/*")):
        if not folder.is_dir():
            continue
        try:
            yield parse_date(f"{folder.parent.name}-{folder.name}", str(folder)), folder
        except TimeFormatError:
            continue  # not ours (a stray folder): leave it alone


def _read(path: Path) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise HistoryError(f"{path}: cannot be read ({exc.strerror})") from None


def _remove_empty(folder: Path, stop: Path) -> None:
    while folder != stop and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent
