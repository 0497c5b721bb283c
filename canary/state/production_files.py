"""A folder of production records (the state branch's `production/<exporter>/`): the records of a span.

Each file is read by the record's one reader (core/production.py `read_record`); one that cannot be
read or breaks the format is named and left out. A file named as the library names it (its window's
start, `2026-12-06T140000Z.json`) and far outside the span is not opened: a year of records is read
in the time of a day's. (Issue 39's round reader, `read_production`, lives
here too once merged: the judge reads the records of its evidence window the same way.)
"""

from __future__ import annotations

import os
from datetime import datetime, timedelta
from pathlib import Path

from core.errors import InputError
from core.production import ProductionRecord, read_record
from core.store import read_json
from core.times import TimeFormatError, parse_time

LONGEST_WINDOW = timedelta(days=1)   # a record whose name starts its window earlier than this before a span is not read


def records_between(folder: Path | None, start: datetime, end: datetime) -> tuple[list[ProductionRecord], list[str]]:
    """The production records of `folder` (`<exporter>/<window>.json`) whose window overlaps [start, end], and
    what was refused (a sentence each). `canary explain` and `canary site` read a span of the folder this way."""
    records: list[ProductionRecord] = []
    refused: list[str] = []
    for path in _files(folder, start, end):
        try:
            record = read_record(read_json(path, "production record", "the exporter must write it again"),
                                 source=str(path))
        except InputError as exc:
            refused.append(f"production record refused, left out: {exc}")
            continue
        if record.window_end > start and record.window_start < end:
            records.append(record)
    return records, refused


def _files(folder: Path | None, start: datetime, end: datetime) -> list[Path]:
    """The folder's `*.json` files, in order, but those whose name puts them far outside [start, end]."""
    out = []
    for root, _, names in sorted(os.walk(folder)) if folder is not None else ():
        for name in sorted(n for n in names if n.endswith(".json")):
            named = _named_start(name[:-5])
            if named is None or start - LONGEST_WINDOW < named < end:
                out.append(Path(root, name))
    return out


def _named_start(stem: str) -> datetime | None:
    """The window start a file's name gives (`2026-12-06T140000Z`), or None for another name."""
    try:
        return parse_time(f"{stem[:13]}:{stem[13:15]}:{stem[15:]}", "name") if len(stem) == 18 else None
    except TimeFormatError:
        return None
