"""History records as documents and back (pure): the two kinds of file, "round" and "day".

A round file holds one RoundRecord: its header, a columnar `cases` table and its `decisions`.
A day file holds one DayAggregate: its rounds, a columnar `groups` table (histograms and counts
as sparse maps), the endpoints' round classes and every decision of the day. See codec.py for
the container.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from canary.history.aggregate import DayAggregate, Group, RoundRef
from canary.history.codec import decode_columns, decode_table, encode_table, pack, unpack
from canary.history.rows import CaseRow, DecisionRow, HistoryError, RoundRecord
from core.times import TimeFormatError, fmt_time, parse_time

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


def round_document(record: RoundRecord) -> dict[str, Any]:
    return {
        "kind": "round", "round_id": record.round_id, "started_at": _iso(record.started_at),
        "finished_at": _iso(record.finished_at), "complete": record.complete, "upstream": record.upstream,
        "mode": record.mode, "models": {m: list(p) for m, p in record.models.items()},
        "cases": encode_table([_fields(r) for r in record.cases], CASE_COLUMNS),
        "decisions": [_decision(d) for d in record.decisions], "skipped": record.skipped,
    }


def encode_round(record: RoundRecord) -> bytes:
    return pack(round_document(record))


def decode_round(data: bytes, where: str) -> RoundRecord:
    doc = unpack(data, where)
    if doc.get("kind") != "round":
        raise HistoryError(f"{where}: not a round file")
    started = _time(doc.get("started_at"), where)
    if started is None:
        raise HistoryError(f"{where}: started_at is missing")
    try:
        cases = tuple(CaseRow(**row) for row in decode_table(doc.get("cases"), CASE_COLUMNS, where))
        decisions = tuple(_decision_row(d) for d in doc.get("decisions") or [])
        models = {str(m): tuple(p) for m, p in dict(doc.get("models") or {}).items()}
    except (TypeError, ValueError, AttributeError) as exc:
        raise HistoryError(f"{where}: a round file with unexpected content ({exc})") from None
    return RoundRecord(
        round_id=str(doc.get("round_id")), started_at=started, finished_at=_time(doc.get("finished_at"), where),
        complete=doc.get("complete") is True, upstream=doc.get("upstream"), mode=doc.get("mode"),
        models=models, cases=cases, decisions=decisions, skipped=int(doc.get("skipped") or 0),
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
    doc = unpack(data, where)
    started = _time(doc.get("started_at"), where)
    if doc.get("kind") != "round" or started is None:
        raise HistoryError(f"{where}: not a round file")
    try:
        decisions = tuple(_decision_row(d) for d in doc.get("decisions") or [])
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        raise HistoryError(f"{where}: a round file with unexpected content ({exc})") from None
    return RoundColumns(str(doc.get("round_id")), started, doc.get("complete") is True, doc.get("upstream"),
                        doc.get("mode"), decode_columns(doc.get("cases"), CASE_COLUMNS, where), decisions)


@dataclass(frozen=True, slots=True)
class DayColumns:
    """A day file read for querying: groups as columns, sparse maps left as text ("pass:47 fail:1")."""

    day: str
    rounds: tuple[RoundRef, ...]
    columns: Mapping[str, list[Any]]     # GROUP_COLUMNS
    classes: tuple[tuple[str, str, Mapping[str, int]], ...]
    decisions: tuple[tuple[str, DecisionRow], ...]


def decode_day_columns(data: bytes, where: str) -> DayColumns:
    doc = unpack(data, where)
    if doc.get("kind") != "day" or not isinstance(doc.get("day"), str):
        raise HistoryError(f"{where}: not a day file")
    try:
        rounds = tuple(RoundRef(str(r[0]), str(r[1]), bool(r[2]), r[3]) for r in doc.get("rounds") or [])
        classes = tuple((str(m), str(p), {str(k): int(v) for k, v in c.items()})
                        for m, p, c in doc.get("classes") or [])
        decisions = tuple((str(rid), _decision_row(d)) for rid, d in doc.get("decisions") or [])
    except (TypeError, ValueError, KeyError, AttributeError, IndexError) as exc:
        raise HistoryError(f"{where}: a day file with unexpected content ({type(exc).__name__}: {exc})") from None
    return DayColumns(doc["day"], rounds, decode_columns(doc.get("groups"), GROUP_COLUMNS, where), classes, decisions)


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
    return pack({
        "kind": "day", "day": day.day,
        "rounds": [[r.round_id, r.started_at, r.complete, r.mode] for r in day.rounds],
        "groups": encode_table(groups, GROUP_COLUMNS),
        "classes": [[m, p, dict(c)] for (m, p), c in day.classes.items()],
        "decisions": [[rid, _decision(d)] for rid, d in day.decisions],
    })


def decode_day(data: bytes, where: str) -> DayAggregate:
    doc = unpack(data, where)
    if doc.get("kind") != "day" or not isinstance(doc.get("day"), str):
        raise HistoryError(f"{where}: not a day file")
    try:
        groups = tuple(Group(
            model=g["model"], provider=g["provider"], contract=g["contract"], control=g["control"],
            outcomes=_unsparse(g["outcomes"], str), languages=_unsparse(g["languages"], str),
            codes=_unsparse(g["codes"], str),
            requests=g["requests"], prompt_tokens=g["prompt_tokens"], completion_tokens=g["completion_tokens"],
            cost_usd=g["cost_usd"] or 0.0, ttft=_unsparse(g["ttft"], int), tps=_unsparse(g["tps"], int),
        ) for g in decode_table(doc.get("groups"), GROUP_COLUMNS, where))
        rounds = tuple(RoundRef(str(r[0]), str(r[1]), bool(r[2]), r[3]) for r in doc.get("rounds") or [])
        classes = {(str(m), str(p)): {str(k): int(v) for k, v in c.items()} for m, p, c in doc.get("classes") or []}
        decisions = tuple((str(rid), _decision_row(d)) for rid, d in doc.get("decisions") or [])
    except (TypeError, ValueError, KeyError, AttributeError, IndexError) as exc:
        raise HistoryError(f"{where}: a day file with unexpected content ({type(exc).__name__}: {exc})") from None
    return DayAggregate(day=doc["day"], rounds=rounds, groups=groups, classes=classes, decisions=decisions)


def _fields(row: CaseRow) -> dict[str, Any]:
    return {name: getattr(row, name) for name in CASE_COLUMNS}


def _decision(d: DecisionRow) -> dict[str, Any]:
    return {"model": d.model, "provider": d.provider, "action": d.action, "rule": d.rule, "reason": d.reason,
            "until": d.until, "rung": d.rung, "evidence": [list(e) for e in d.evidence]}


def _decision_row(d: Mapping[str, Any]) -> DecisionRow:
    return DecisionRow(model=str(d["model"]), provider=str(d["provider"]), action=str(d["action"]),
                       rule=str(d["rule"]), reason=str(d["reason"]), until=d.get("until"), rung=d.get("rung"),
                       evidence=tuple((str(c), str(o), str(r)) for c, o, r in d.get("evidence") or []))


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


def _iso(value: datetime | None) -> str | None:
    return fmt_time(value)


def _time(value: Any, where: str) -> datetime | None:
    if value is None:
        return None
    try:
        return parse_time(str(value), where)  # naive means UTC (it once meant this machine's local time)
    except TimeFormatError:
        raise HistoryError(f"{where}: {value!r} is not a time") from None
