"""History records as documents and back (pure): the two kinds of file, "round" and "day".

Each document is declared once (`RoundFile`, `DayFile`: frozen Structs read with core/schema.py, a
key this version does not know skipped); codec.py holds the container and the columnar tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar, cast

import msgspec

from canary.history.aggregate import DayAggregate, Group, RoundRef
from canary.history.codec import decode_columns, decode_table, encode_table, pack, unpack
from canary.history.rows import CaseRow, DecisionRow, HistoryError, RoundRecord
from core.schema import read_as
from core.times import TimeFormatError, fmt_time, parse_time

T = TypeVar("T")

CASE_COLUMNS: dict[str, str | int] = {
    "model": "text", "provider": "text", "contract": "text", "outcome": "text", "code": "text",
    "language": "text", "control": "flag", "ttft_s": 1000, "duration_s": 100, "requests": "int",
    "prompt_tokens": "int", "completion_tokens": "int", "cost_usd": 10**8, "served_by": "text",
    "tokens_per_s": 1, "reason": "text",
}
GROUP_COLUMNS: dict[str, str | int] = {
    "model": "text", "provider": "text", "contract": "text", "control": "flag",
    "outcomes": "text", "languages": "text", "codes": "text", "requests": "int", "prompt_tokens": "int",
    "completion_tokens": "int", "cost_usd": 10**8, "ttft": "text", "tps": "text",
}


class ColumnarTable(msgspec.Struct, frozen=True):
    """A columnar table (codec.py): how many rows, and each column as stored."""

    rows: int
    cols: dict[str, Any]

    def stored(self) -> dict[str, Any]:
        """As codec.py's decoders take it (the columns themselves, not copied)."""
        return {"rows": self.rows, "cols": self.cols}


class RoundFile(msgspec.Struct, frozen=True, tag_field="kind", tag="round"):
    """A round file's document. canary writes it, so a key this version does not know is skipped
    (a later version may add one); times stay text here (a naive one means UTC: `_time`)."""

    round_id: str
    started_at: str
    cases: ColumnarTable
    finished_at: str | None = None
    complete: bool = False
    upstream: str | None = None
    mode: str | None = None
    models: dict[str, tuple[str, ...]] = {}
    decisions: tuple[DecisionRow, ...] = ()
    skipped: int = 0


class DayFile(msgspec.Struct, frozen=True, tag_field="kind", tag="day"):
    """A day file's document: its rounds (id, start, complete, mode), the groups table, each
    endpoint's round classes and the day's decisions (round id, decision)."""

    day: str
    groups: ColumnarTable
    rounds: tuple[tuple[str, str, bool, str | None], ...] = ()
    classes: tuple[tuple[str, str, dict[str, int]], ...] = ()
    decisions: tuple[tuple[str, DecisionRow], ...] = ()


def round_document(record: RoundRecord) -> dict[str, Any]:
    doc = RoundFile(
        round_id=record.round_id, started_at=fmt_time(record.started_at) or "",
        finished_at=fmt_time(record.finished_at),
        complete=record.complete, upstream=record.upstream, mode=record.mode,
        models={m: tuple(p) for m, p in record.models.items()},
        cases=ColumnarTable(**encode_table([_fields(r) for r in record.cases], CASE_COLUMNS)),
        decisions=record.decisions, skipped=record.skipped)
    return cast(dict[str, Any], msgspec.to_builtins(doc))


def encode_round(record: RoundRecord) -> bytes:
    return pack(round_document(record))


def decode_round(data: bytes, where: str) -> RoundRecord:
    doc = _read(unpack(data, where), RoundFile, where)
    try:
        cases = tuple(CaseRow(**row) for row in decode_table(doc.cases.stored(), CASE_COLUMNS, where))
    except (TypeError, ValueError) as exc:
        raise HistoryError(f"{where}: a round file with unexpected content ({exc})") from None
    return RoundRecord(
        round_id=doc.round_id, started_at=_started(doc.started_at, where), finished_at=_time(doc.finished_at, where),
        complete=doc.complete, upstream=doc.upstream, mode=doc.mode, models=doc.models, cases=cases,
        decisions=doc.decisions, skipped=doc.skipped,
    )


@dataclass(frozen=True, slots=True)
class RoundColumns:
    """A round file read for querying: its header and its cases as columns (no row objects)."""

    round_id: str
    started_at: datetime
    complete: bool
    upstream: str | None
    mode: str | None
    columns: Mapping[str, list[Any]]     # CASE_COLUMNS, each a list of the same length
    decisions: tuple[DecisionRow, ...]


def decode_round_columns(data: bytes, where: str) -> RoundColumns:
    """A round file's cases as columns: what the query database loads (faster than rows)."""
    doc = _read(unpack(data, where), RoundFile, where)
    return RoundColumns(doc.round_id, _started(doc.started_at, where), doc.complete, doc.upstream, doc.mode,
                        decode_columns(doc.cases.stored(), CASE_COLUMNS, where), doc.decisions)


@dataclass(frozen=True, slots=True)
class DayColumns:
    """A day file read for querying: groups as columns, sparse maps left as text ("pass:47 fail:1")."""

    day: str
    rounds: tuple[RoundRef, ...]
    columns: Mapping[str, list[Any]]     # GROUP_COLUMNS
    classes: tuple[tuple[str, str, Mapping[str, int]], ...]
    decisions: tuple[tuple[str, DecisionRow], ...]


def decode_day_columns(data: bytes, where: str) -> DayColumns:
    doc = _read(unpack(data, where), DayFile, where)
    return DayColumns(doc.day, tuple(RoundRef(*r) for r in doc.rounds),
                      decode_columns(doc.groups.stored(), GROUP_COLUMNS, where), doc.classes,
                      doc.decisions)


def unsparse(text: Any, key: type = str) -> dict[Any, int]:
    """A sparse map stored as text back to a mapping."""
    return _unsparse(text, key)


def encode_day(day: DayAggregate) -> bytes:
    groups = [{
        "model": g.model, "provider": g.provider, "contract": g.contract,
        "control": g.control, "outcomes": _sparse(g.outcomes), "languages": _sparse(g.languages),
        "codes": _sparse(g.codes),
        "requests": g.requests, "prompt_tokens": g.prompt_tokens, "completion_tokens": g.completion_tokens,
        "cost_usd": g.cost_usd, "ttft": _sparse(g.ttft), "tps": _sparse(g.tps),
    } for g in day.groups]
    doc = DayFile(
        day=day.day, groups=ColumnarTable(**encode_table(groups, GROUP_COLUMNS)),
        rounds=tuple((r.round_id, r.started_at, r.complete, r.mode) for r in day.rounds),
        classes=tuple((m, p, dict(c)) for (m, p), c in day.classes.items()), decisions=day.decisions)
    return pack(msgspec.to_builtins(doc))


def decode_day(data: bytes, where: str) -> DayAggregate:
    doc = _read(unpack(data, where), DayFile, where)
    try:
        groups = tuple(Group(
            model=g["model"], provider=g["provider"], contract=g["contract"], control=g["control"],
            outcomes=_unsparse(g["outcomes"], str), languages=_unsparse(g["languages"], str),
            codes=_unsparse(g["codes"], str),
            requests=g["requests"], prompt_tokens=g["prompt_tokens"], completion_tokens=g["completion_tokens"],
            cost_usd=g["cost_usd"] or 0.0, ttft=_unsparse(g["ttft"], int), tps=_unsparse(g["tps"], int),
        ) for g in decode_table(doc.groups.stored(), GROUP_COLUMNS, where))
    except (TypeError, ValueError, KeyError) as exc:
        raise HistoryError(f"{where}: a day file with unexpected content ({type(exc).__name__}: {exc})") from None
    return DayAggregate(day=doc.day, rounds=tuple(RoundRef(*r) for r in doc.rounds), groups=groups,
                        classes={(m, p): c for m, p, c in doc.classes}, decisions=doc.decisions)


def _read(doc: dict[str, Any], kind: type[T], where: str) -> T:
    """A document read as its declaration: HistoryError naming the file and the dotted key."""
    expected = "round" if kind is RoundFile else "day"
    if doc.get("kind") != expected:
        raise HistoryError(f"{where}: not a {expected} file")
    body = {k: v for k, v in doc.items() if k not in ("format", "version")}
    return read_as(body, kind, source=where, error=HistoryError, ignore_unknown_keys=True)


def _fields(row: CaseRow) -> dict[str, Any]:
    return {name: getattr(row, name) for name in CASE_COLUMNS}


def _sparse(counts: Mapping[Any, int]) -> str:
    """A small map as compact text ("pass:47 fail:1"): dictionary-coded like any text column."""
    return " ".join(f"{k}:{v}" for k, v in sorted(counts.items(), key=lambda kv: str(kv[0])))


def _unsparse(text: Any, key: type) -> dict[Any, int]:
    if not text:
        return {}
    out = {}
    for part in str(text).split(" "):
        k, _, v = part.rpartition(":")
        out[key(k)] = int(v)
    return out


def _started(value: str, where: str) -> datetime:
    started = _time(value, where)
    if started is None:
        raise HistoryError(f"{where}: started_at is missing")
    return started


def _time(value: Any, where: str) -> datetime | None:
    if value is None:
        return None
    try:
        return parse_time(str(value), where)  # naive means UTC (it once meant this machine's local time)
    except TimeFormatError:
        raise HistoryError(f"{where}: {value!r} is not a time") from None
