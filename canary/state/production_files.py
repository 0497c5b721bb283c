"""A folder of production records (`canary judge --production DIR`): the records a round may read.

The folder is the state branch's `production/` (the workflow copies it from the tip the judge
reads the state from) or any folder of records on a laptop: `<exporter>/<window start>.json`, each
read by the record's one reader (core/production.py read_record). A round reads the records whose
window ends inside its evidence window (the WINDOW_ROUNDS rounds of half an hour before `now`), so a
record that arrives after its window's round is read by the next one. A file that cannot be read, a
record that breaks the format, one filed under another exporter's folder or one whose window ends
after the round is refused: named with its file and why, and the round is judged without it.
`canary explain` and `canary site` read another span (`records_between`). A file named as the library
names it (its window's start, `2026-12-06T140000Z.json`) long before the span is not opened: a year
of records is read in the time of a day's.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from core.errors import InputError
from core.production import ProductionRecord, read_record
from core.store import read_json
from core.times import TimeFormatError, parse_time, stamp
from judge.suspension.window import WINDOW_ROUNDS

EVIDENCE_WINDOW = WINDOW_ROUNDS * timedelta(minutes=30)
MAX_RECORD_BYTES = 1 << 20   # a backend's record is a few KB; a larger file is not read at all
LONGEST_WINDOW = timedelta(days=1)   # a record named as starting this long before a span is not opened


@dataclass(frozen=True, slots=True)
class ProductionFolder:
    """What a round read from a folder of records: the records in its window, and the files refused."""

    records: tuple[ProductionRecord, ...]
    refused: tuple[tuple[Path, str], ...]   # (file, why)

    @property
    def exporters(self) -> frozenset[str]:
        return frozenset(r.exporter for r in self.records)


def read_production(folder: Path, *, now: datetime) -> ProductionFolder:
    """The records of `folder` whose window ends within the evidence window before `now`."""
    records: list[ProductionRecord] = []
    refused: list[tuple[Path, str]] = []
    for path in _files(folder, now - EVIDENCE_WINDOW):
        try:
            record = _read(path)
        except InputError as exc:
            refused.append((path, str(exc)))
            continue
        if path.parent != Path(folder) and path.parent.name != record.exporter:
            refused.append((path, f"exporter {record.exporter!r} filed under {path.parent.name!r}"))
        elif record.window_end > now:
            refused.append((path, f"its window ends after the round ({stamp(record.window_end)}): is the "
                                  "exporter's clock ahead?"))
        elif record.window_end > now - EVIDENCE_WINDOW:
            records.append(record)
    return ProductionFolder(tuple(records), tuple(refused))


def records_between(folder: Path | None, start: datetime, end: datetime) -> tuple[list[ProductionRecord], list[str]]:
    """The records of `folder` whose window overlaps [start, end], and each file refused, in a sentence."""
    records: list[ProductionRecord] = []
    refused: list[str] = []
    for path in _files(folder, start, end):
        try:
            record = _read(path)
        except InputError as exc:
            refused.append(f"production record refused, left out: {exc}")
            continue
        if record.window_end > start and record.window_start < end:
            records.append(record)
    return records, refused


def _files(folder: Path | None, since: datetime, until: datetime | None = None) -> list[Path]:
    """The folder's `*.json` files, in order, but those named as starting their window long before `since`
    or after `until` (None: none skipped after: the round names a record from an exporter whose clock is ahead)."""
    out = []
    for root, _, names in sorted(os.walk(folder)) if folder is not None else ():
        for name in sorted(n for n in names if n.endswith(".json")):
            named = _named_start(name[:-5])
            if named is None or since - LONGEST_WINDOW < named and (until is None or named < until):
                out.append(Path(root, name))
    return out


def _named_start(stem: str) -> datetime | None:
    """The window start a file's name gives (`2026-12-06T140000Z`), or None for another name."""
    try:
        return parse_time(f"{stem[:13]}:{stem[13:15]}:{stem[15:]}", "name") if len(stem) == 18 else None
    except TimeFormatError:
        return None


def _read(path: Path) -> ProductionRecord:
    if path.stat().st_size > MAX_RECORD_BYTES:
        raise InputError(f"{path}: {path.stat().st_size} bytes, more than a record holds ({MAX_RECORD_BYTES})")
    fix = "the exporter must write it again (docs/production.md)"
    return read_record(read_json(path, "production record", fix), source=str(path))
