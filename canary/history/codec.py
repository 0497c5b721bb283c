"""The on-disk form of history files: columnar JSON, compressed (pure: bytes in, records out).

Tables are stored by column, text columns dictionary-coded, so a round's rows repeat no provider
name, contract or code; times are whole milliseconds, costs whole 1e-8 USD. LZMA in an xz container
carries a checksum, so a damaged file is detected, never half-read. A newer `version` is refused,
unknown extra keys are ignored (a later version may add columns).

    {"format": "canary-history", "version": 1, "kind": "round" | "day", ...header...,
     "cases": {"rows": N, "cols": {"model": {"dict": [...], "idx": [...]}, "ttft_ms": [...], ...}}}
"""

from __future__ import annotations

import json
import lzma
from collections.abc import Mapping, Sequence
from typing import Any

from canary.history.rows import HistoryError

FORMAT = "canary-history"
VERSION = 1

# column name -> how it is stored: "text" (dictionary-coded), "int", "flag", or a scale
# factor for a float stored as a whole number (1000: milliseconds from seconds).
Columns = Mapping[str, str | int]


def encode_table(rows: Sequence[Mapping[str, Any]], columns: Columns) -> dict[str, Any]:
    """Rows (mappings with at least `columns`) as one columnar object."""
    cols: dict[str, Any] = {}
    for name, kind in columns.items():
        values = [row.get(name) for row in rows]
        if kind == "text":
            dictionary: dict[str, int] = {}
            idx = [None if v is None else dictionary.setdefault(str(v), len(dictionary)) for v in values]
            cols[name] = {"dict": list(dictionary), "idx": idx}
        elif kind == "flag":
            cols[name] = [1 if v else 0 for v in values]
        elif kind == "int":
            cols[name] = [None if v is None else int(v) for v in values]
        else:
            cols[name] = [None if v is None else round(float(v) * int(kind)) for v in values]
    return {"rows": len(rows), "cols": cols}


def decode_columns(table: Any, columns: Columns, where: str) -> dict[str, list[Any]]:
    """The columns of a columnar object, decoded; HistoryError names `where` when its shape is wrong."""
    if (not isinstance(table, Mapping) or not isinstance(table.get("rows"), int)
            or not isinstance(table.get("cols"), Mapping)):
        raise HistoryError(f"{where}: a table lacks rows/cols")
    count, cols = table["rows"], table["cols"]
    out: dict[str, list[Any]] = {}
    for name, kind in columns.items():
        stored = cols.get(name)
        if kind == "text":
            if not isinstance(stored, Mapping):
                raise HistoryError(f"{where}: column {name} is missing")
            dictionary, idx = stored.get("dict"), stored.get("idx")
            values: list[Any] = list(idx) if isinstance(idx, list) else []
            if not isinstance(dictionary, list) or len(values) != count:
                raise HistoryError(f"{where}: column {name} has {len(values)} values for {count} rows")
            try:
                values = [None if i is None else dictionary[i] for i in values]
            except (IndexError, TypeError):
                raise HistoryError(f"{where}: column {name} points outside its dictionary") from None
        else:
            values = stored if isinstance(stored, list) else []
            if len(values) != count:
                raise HistoryError(f"{where}: column {name} has {len(values)} values for {count} rows")
            if kind == "flag":
                values = [bool(v) for v in values]
            elif kind != "int":
                scale = int(kind)
                values = [None if v is None else v / scale for v in values]
        out[name] = values
    return out


def decode_table(table: Any, columns: Columns, where: str) -> list[dict[str, Any]]:
    """The rows of a columnar object, as mappings."""
    decoded = decode_columns(table, columns, where)
    names = list(columns)
    if not names:
        return []
    return [dict(zip(names, values, strict=True)) for values in zip(*(decoded[n] for n in names), strict=False)]


def pack(document: Mapping[str, Any]) -> bytes:
    """A history document as the bytes of its file (deterministic: same document, same bytes)."""
    text = json.dumps({"format": FORMAT, "version": VERSION, **document}, sort_keys=True,
                      separators=(",", ":"), ensure_ascii=False)
    return lzma.compress(text.encode("utf-8"), format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC32,
                         preset=6)


def unpack(data: bytes, where: str) -> dict[str, Any]:
    """The document of a history file; HistoryError (naming `where`) when it is damaged or too new."""
    try:
        doc = json.loads(lzma.decompress(data, format=lzma.FORMAT_XZ).decode("utf-8"))
    except (lzma.LZMAError, EOFError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise HistoryError(f"{where}: damaged history file ({type(exc).__name__}: {str(exc)[:80]}); "
                           "restore it from git (git checkout -- <file>) or delete it: history is evidence, "
                           "never needed to judge") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise HistoryError(f"{where}: not a canary history file")
    version = doc.get("version")
    if not isinstance(version, int) or version > VERSION:
        raise HistoryError(f"{where}: history format version {version!r} is newer than this canary reads "
                           f"({VERSION}); upgrade canary")
    return doc
