"""A decoded-rounds cache (I/O, opt-in): the history's files kept as SQLite rows on disk.

Opening a span decodes every file of it (xz, JSON, columns) and inserts its rows into SQLite:
about 2 ms a file, 3 s for the 2,000 files of a year (benchmarks/README.md). Round files are
written once and never change, so a second query decodes nothing new. With a cache folder
(`CANARY_HISTORY_CACHE=DIR`, or History.open(..., cache=DIR)), each file's rows are kept in one
SQLite file per history folder, keyed by the file's name and a digest of its bytes (not its
mtime: a fresh git checkout changes every mtime and no byte); a query decodes only the files
it has not seen, drops the rows of files that are gone (compaction), and copies the span's
rows into the in-memory database in one statement per table.

The cache is never the truth: a damaged or foreign cache file is deleted and rebuilt, and any
cache failure falls back to reading the files (a damaged *history* file still raises
HistoryError, with or without the cache). It is opt-in because it writes outside the history
(a few hundred bytes per case: ~90 MB for a year of 64 endpoints) and because a CI runner
starts without it anyway.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from canary.history import db as database
from canary.history.files import decode_day_columns, decode_round_columns
from canary.history.rows import HistoryError
from canary.history.store import SUFFIX
from core.times import TimeFormatError, parse_date

ENV = "CANARY_HISTORY_CACHE"
VERSION = 1          # bump when db.SCHEMA or what a file decodes to changes: old caches are rebuilt
TABLES = ("rounds", "cases", "decisions", "day_groups", "day_classes")


@dataclass(frozen=True, slots=True)
class Loaded:
    """How a span was read: from the cache (hits) and from the files (decoded)."""

    hits: int
    decoded: int


def cache_folder(explicit: Path | None = None) -> Path | None:
    """The cache folder: `explicit`, else $CANARY_HISTORY_CACHE, else None (no cache)."""
    if explicit is not None:
        return Path(explicit)
    value = os.environ.get(ENV, "").strip()
    return Path(value).expanduser() if value else None


def cache_file(folder: Path, root: Path) -> Path:
    """One cache file per history folder (its absolute path, hashed) and cache version."""
    key = hashlib.sha256(str(Path(root).resolve()).encode("utf-8")).hexdigest()[:16]
    return Path(folder) / f"history-{key}-v{VERSION}.sqlite"


def span_files(root: Path, since: date | None) -> tuple[list[Path], list[Path]]:
    """(round files, day files) of the span, in the order store.read_column_span() reads them."""
    days = [p for p in sorted(Path(root).glob(f"days/*/*{SUFFIX}"))
            if since is None or p.name[:10] >= since.isoformat()]
    rounds = []
    for folder in sorted(Path(root).glob("rounds/*/*")):
        try:
            day = parse_date(f"{folder.parent.name}-{folder.name}", str(folder))
        except TimeFormatError:
            continue  # not ours (a stray folder): leave it alone, as store.py does
        if folder.is_dir() and (since is None or day >= since):
            rounds.extend(sorted(folder.glob(f"*{SUFFIX}")))
    return rounds, days


def load(folder: Path, root: Path, since: date | None) -> tuple[sqlite3.Connection, Loaded]:
    """The in-memory database of the span, through the cache (raises HistoryError for a bad history file)."""
    path = cache_file(folder, root)
    for _attempt in range(2):
        try:
            return _load(path, root, since)
        except HistoryError:
            raise
        except (sqlite3.Error, OSError, ValueError, KeyError):
            # A damaged, locked-forever or foreign cache: start it again once, then give up on it.
            _remove(path)
    rounds, days = span_files(root, since)
    return _cold(root, since), Loaded(0, len(rounds) + len(days))


def _cold(root: Path, since: date | None) -> sqlite3.Connection:
    from canary.history.store import read_column_span

    span = read_column_span(root, since=since)
    return database.build(span.rounds, span.days)


def _load(path: Path, root: Path, since: date | None) -> tuple[sqlite3.Connection, Loaded]:
    path.parent.mkdir(parents=True, exist_ok=True)
    cache = sqlite3.connect(path, timeout=60, isolation_level=None)
    try:
        cache.execute("PRAGMA journal_mode=WAL")
        cache.execute("PRAGMA synchronous=OFF")   # a cache: a lost write is decoded again
        _schema(cache)
        rounds, days = span_files(root, since)
        wanted = [("round", p) for p in rounds] + [("day", p) for p in days]
        # Where a file is decoded before its rows move into the cache (outside the transaction:
        # ATTACH and executescript may not run inside one).
        cache.execute("ATTACH DATABASE ':memory:' AS scratch")
        cache.executescript(database.SCHEMA.replace("CREATE TABLE ", "CREATE TABLE scratch."))
        cache.execute("BEGIN IMMEDIATE")
        try:
            loaded, fids = _sync(cache, root, wanted)
            cache.execute("COMMIT")
        except BaseException:
            cache.execute("ROLLBACK")
            raise
    finally:
        cache.close()
    return _copy(path, fids), loaded


def _schema(cache: sqlite3.Connection) -> None:
    """The cache's tables: db.SCHEMA's, each with the id of the file its rows came from."""
    if cache.execute("SELECT 1 FROM sqlite_master WHERE name = 'files'").fetchone() is not None:
        return
    scratch = sqlite3.connect(":memory:")
    scratch.executescript(database.SCHEMA)
    script = ["CREATE TABLE files(fid INTEGER PRIMARY KEY, name TEXT UNIQUE, digest TEXT, kind TEXT, seen INT);",
              "CREATE TABLE endpoints(eid INTEGER PRIMARY KEY, model TEXT, provider TEXT, UNIQUE(model, provider));",
              "CREATE TABLE counters(name TEXT PRIMARY KEY, value INT);",
              "INSERT INTO counters VALUES ('rid', 0);"]
    for table in TABLES:
        columns = ", ".join(row[1] for row in scratch.execute(f"PRAGMA table_info({table})"))
        script.append(f"CREATE TABLE {table}({columns}, fid INT);")
        script.append(f"CREATE INDEX {table}_fid ON {table}(fid);")
    cache.executescript("BEGIN;" + "".join(script) + "COMMIT;")


def _sync(cache: sqlite3.Connection, root: Path, wanted: list[tuple[str, Path]]) -> tuple[Loaded, list[int]]:
    """Bring the cache up to date with the wanted files; their fids in reading order."""
    known = {name: (fid, digest) for fid, name, digest in cache.execute("SELECT fid, name, digest FROM files")}
    ids = database.Ids()
    ids.endpoints = {(m, p): eid for eid, m, p in cache.execute("SELECT eid, model, provider FROM endpoints")}
    ids.rounds = cache.execute("SELECT value FROM counters WHERE name = 'rid'").fetchone()[0]
    fresh_endpoints = len(ids.endpoints)
    fids, hits, decoded = [], 0, 0
    for kind, path in wanted:
        name = path.relative_to(root).as_posix()
        data = _read(path)
        digest = hashlib.blake2b(data, digest_size=16).hexdigest()
        entry = known.get(name)
        if entry is not None and entry[1] == digest:
            fids.append(entry[0])
            hits += 1
            continue
        if entry is not None:  # the file changed (a day file merged again): forget its old rows
            _forget(cache, entry[0])
        fid = cache.execute("INSERT INTO files(name, digest, kind) VALUES (?,?,?)", (name, digest, kind)).lastrowid
        assert fid is not None
        _decode_into(cache, kind, data, str(path), fid, ids)
        fids.append(fid)
        decoded += 1
    present = {p.relative_to(root).as_posix() for _, p in wanted}
    for name, (fid, _) in known.items():
        if name not in present and not (Path(root) / name).exists():
            _forget(cache, fid)  # compacted or deleted: its rows must not come back
    cache.executemany("INSERT OR IGNORE INTO endpoints VALUES (?,?,?)",
                      [(eid, m, p) for (m, p), eid in list(ids.endpoints.items())[fresh_endpoints:]])
    cache.execute("UPDATE counters SET value = ? WHERE name = 'rid'", (ids.rounds,))
    return Loaded(hits, decoded), fids


def _decode_into(cache: sqlite3.Connection, kind: str, data: bytes, where: str, fid: int, ids: database.Ids) -> None:
    """Decode one file with db.py's own loaders into the scratch database (attached to the cache's
    connection as `scratch`), then move its rows into the cache in SQL."""
    if kind == "round":
        database.insert_round(cache, decode_round_columns(data, where), ids, schema="scratch")
    else:
        database.insert_day(cache, decode_day_columns(data, where), ids, schema="scratch")
    for table in TABLES:
        cache.execute(f"INSERT INTO main.{table} SELECT *, ? FROM scratch.{table}", (fid,))
        cache.execute(f"DELETE FROM scratch.{table}")


def _forget(cache: sqlite3.Connection, fid: int) -> None:
    for table in TABLES:
        cache.execute(f"DELETE FROM {table} WHERE fid = ?", (fid,))
    cache.execute("DELETE FROM files WHERE fid = ?", (fid,))


def _copy(path: Path, fids: list[int]) -> sqlite3.Connection:
    """The in-memory database of the span: the cached rows of `fids`, in reading order, as db.build() makes it."""
    memory = sqlite3.connect(":memory:")
    memory.executescript(database.SCHEMA)
    database.math_functions(memory)
    memory.execute("ATTACH DATABASE ? AS cache", (str(path),))
    memory.execute("CREATE TEMP TABLE span(fid INTEGER PRIMARY KEY, position INT)")
    memory.executemany("INSERT INTO temp.span VALUES (?,?)", [(fid, i) for i, fid in enumerate(fids)])
    # A round file whose round is in a compacted day file of the span is a crash's leftover (store.py).
    memory.execute("""CREATE TEMP TABLE leftover AS
        SELECT s.fid FROM temp.span s JOIN cache.files f ON f.fid = s.fid AND f.kind = 'round'
        JOIN cache.rounds r ON r.fid = s.fid
        WHERE r.round_id IN (SELECT d.round_id FROM cache.rounds d JOIN temp.span t ON t.fid = d.fid
                             JOIN cache.files g ON g.fid = d.fid AND g.kind = 'day')""")
    # Rows in the cache's own order (files in the order they were first read, each file's rows in
    # its order): the same order within every round and day as db.build(), without a sort.
    for table in TABLES:
        columns = ", ".join(f"x.{row[1]}" for row in memory.execute(f"PRAGMA main.table_info({table})"))
        verb = "INSERT OR IGNORE" if table == "rounds" else "INSERT"
        memory.execute(f"""{verb} INTO main.{table} SELECT {columns} FROM cache.{table} x
                           WHERE x.fid IN (SELECT fid FROM temp.span EXCEPT SELECT fid FROM temp.leftover)""")
    memory.execute("""INSERT INTO main.endpoints
        SELECT e.eid, e.model, e.provider, e.eid IN (SELECT DISTINCT eid FROM main.cases)
        FROM cache.endpoints e WHERE e.eid IN (SELECT eid FROM main.cases UNION SELECT eid FROM main.day_groups
                                               UNION SELECT eid FROM main.day_classes)""")
    memory.commit()
    memory.execute("DETACH DATABASE cache")
    return memory


def _read(path: Path) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise HistoryError(f"{path}: cannot be read ({exc.strerror})") from None


def _remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        try:
            Path(str(path) + suffix).unlink()
        except FileNotFoundError:
            pass
