"""The history as SQLite tables: an in-memory database built from the files of a span (I/O).

Why SQLite: docs/history.md. Times are Unix seconds, `day` the UTC date. endpoint_rounds is filled
only for detail days, by prepare_endpoints(); day_groups and day_classes hold the compacted days,
their `codes`, `languages`, `ttft` and `tps` sparse maps as text ("pt/pass:20": files.unsparse()).
`eid` (endpoint) and `rid` (round, in loading order) are small integers given while loading: grouping
and joining on them is several times faster than on the text columns, which stay for readers.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Iterable
from itertools import repeat

from canary.history.files import CASE_COLUMNS, DayColumns, RoundColumns, unsparse
from canary.history.rows import DecisionRow
from core.times import parse_time

SCHEMA = """
CREATE TABLE endpoints(eid INTEGER PRIMARY KEY, model TEXT, provider TEXT, detail INT);
CREATE TABLE rounds(round_id TEXT PRIMARY KEY, ts REAL, day TEXT, complete INT, mode TEXT, upstream TEXT,
                    compacted INT, rid INT);
CREATE TABLE cases(round_id TEXT, ts REAL, day TEXT, model TEXT, provider TEXT, contract TEXT, outcome TEXT,
                   code TEXT, language TEXT, control INT, ttft_s REAL, duration_s REAL, requests INT,
                   prompt_tokens INT, completion_tokens INT, cost_usd REAL, served_by TEXT,
                   tokens_per_s REAL, reason TEXT, eid INT, rid INT);
CREATE TABLE endpoint_rounds(round_id TEXT, ts REAL, day TEXT, model TEXT, provider TEXT, klass TEXT, codes TEXT,
                             eid INT, rid INT);
CREATE TABLE decisions(round_id TEXT, ts REAL, model TEXT, provider TEXT, action TEXT, rule TEXT, reason TEXT,
                       until TEXT, rung INT, evidence TEXT);
CREATE TABLE day_groups(day TEXT, model TEXT, provider TEXT, contract TEXT, control INT,
                        n_pass INT, n_fail INT, n_inconclusive INT, n_transport_error INT, n_not_applicable INT,
                        requests INT, prompt_tokens INT, completion_tokens INT, cost_usd REAL, codes TEXT,
                        languages TEXT, ttft TEXT, tps TEXT, eid INT);
CREATE TABLE day_classes(day TEXT, model TEXT, provider TEXT, failed INT, clean INT, frozen INT, eid INT);
"""
INDEXES = """
CREATE INDEX endpoint_rounds_endpoint ON endpoint_rounds(model, provider, ts);
CREATE INDEX endpoint_rounds_eid ON endpoint_rounds(eid, ts);
"""


def build(rounds: Iterable[RoundColumns], days: Iterable[DayColumns]) -> sqlite3.Connection:
    """A new in-memory database holding `rounds` (full detail) and `days` (compacted)."""
    db = sqlite3.connect(":memory:")
    db.executescript(SCHEMA)
    math_functions(db)
    ids = Ids()
    for r in rounds:
        insert_round(db, r, ids)
    for day in days:
        insert_day(db, day, ids)
    db.executemany("INSERT INTO endpoints VALUES (?,?,?,?)",
                   [(eid, m, p, int(eid in ids.detail)) for (m, p), eid in ids.endpoints.items()])
    return db


class Ids:
    """The small integers given while loading: one per endpoint, one per round."""

    def __init__(self) -> None:
        self.endpoints: dict[tuple[str, str], int] = {}
        self.detail: set[int] = set()      # endpoints with cases (full-detail rounds)
        self.rounds = 0

    def endpoint(self, model: str, provider: str) -> int:
        return self.endpoints.setdefault((model, provider), len(self.endpoints))

    def column(self, models: list[str], providers: list[str]) -> list[int]:
        """The eid of every row of a round (rounds repeat the same few endpoints: cached per pair)."""
        out = [self.endpoint(m, p) for m, p in zip(models, providers, strict=False)]
        self.detail.update(out)
        return out


def math_functions(db: sqlite3.Connection) -> None:
    """log10() and floor() in SQL (the histogram buckets): SQLite has them when compiled with its math
    functions, as Python's own builds are; otherwise Python's, which give the same numbers."""
    try:
        db.execute("SELECT log10(10.0), floor(1.5)").fetchone()
    except sqlite3.OperationalError:
        db.create_function("log10", 1, math.log10, deterministic=True)
        db.create_function("floor", 1, math.floor, deterministic=True)


def prepare_endpoints(db: sqlite3.Connection) -> None:
    """Fill endpoint_rounds and index the per-endpoint queries: done on the first query that needs
    them (timelines, tiers), not on every open (`canary history` reads neither)."""
    if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'endpoint_rounds_endpoint'").fetchone() is None:
        db.execute(ENDPOINT_ROUNDS)
        db.executescript(INDEXES)


# The class of each endpoint in each round, as aggregate.endpoint_rounds() computes it (a test keeps the
# two equal). Cases are loaded round by round in endpoint order, so grouping on (rid, eid) walks them in order.
ENDPOINT_ROUNDS = """
INSERT INTO endpoint_rounds
WITH per AS (
    SELECT rid, eid, MIN(round_id) AS round_id, MIN(ts) AS ts, MIN(day) AS day, MIN(model) AS model,
           MIN(provider) AS provider, COUNT(DISTINCT contract) AS probed,
           SUM(control = 0 AND outcome = 'fail') AS fails, SUM(control = 0 AND outcome = 'pass') AS passes,
           SUM(control = 0 AND outcome NOT IN ('pass', 'not_applicable')) AS others,
           COALESCE(GROUP_CONCAT(CASE WHEN control = 0 AND outcome NOT IN ('pass', 'not_applicable')
                                      THEN contract || ':' || code END, ' '), '') AS codes
    FROM cases GROUP BY rid, eid),
expected AS (SELECT rid, model, COUNT(DISTINCT contract) AS n FROM cases GROUP BY rid, model),
held AS (SELECT DISTINCT round_id, model, provider FROM decisions WHERE rule = 'maintenance')
SELECT p.round_id, p.ts, p.day, p.model, p.provider,
       CASE WHEN h.round_id IS NOT NULL THEN 'maintenance'
            WHEN p.fails > 0 THEN 'failed'
            WHEN p.passes > 0 AND p.others = 0 AND p.probed >= e.n THEN 'clean'
            ELSE 'frozen' END,
       p.codes, p.eid, p.rid
FROM per p JOIN expected e ON e.rid = p.rid AND e.model = p.model
LEFT JOIN held h ON h.round_id = p.round_id AND h.model = p.model AND h.provider = p.provider
"""


def insert_round(db: sqlite3.Connection, r: RoundColumns, ids: Ids | None = None, schema: str = "main") -> None:
    ids = ids or Ids()
    ids.rounds += 1
    rid = ids.rounds
    ts, day = r.started_at.timestamp(), r.started_at.date().isoformat()
    db.execute(f"INSERT OR IGNORE INTO {schema}.rounds VALUES (?,?,?,?,?,?,0,?)",
               (r.round_id, ts, day, int(r.complete), r.mode, r.upstream, rid))
    columns = [r.columns[name] for name in CASE_COLUMNS]
    count = len(columns[0]) if columns else 0
    eids = ids.column(r.columns["model"], r.columns["provider"])
    db.executemany(f"INSERT INTO {schema}.cases VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                   zip(repeat(r.round_id, count), repeat(ts, count), repeat(day, count), *columns, eids,
                       repeat(rid, count), strict=False))
    _insert_decisions(db, r.round_id, ts, r.decisions, schema)


def insert_day(db: sqlite3.Connection, d: DayColumns, ids: Ids | None = None, schema: str = "main") -> None:
    ids = ids or Ids()
    started = {ref.round_id: _ts(ref.started_at) for ref in d.rounds}
    rows = []
    for ref in d.rounds:
        ids.rounds += 1
        rows.append((ref.round_id, started[ref.round_id], d.day, int(ref.complete), ref.mode, ids.rounds))
    db.executemany(f"INSERT OR IGNORE INTO {schema}.rounds VALUES (?,?,?,?,?,NULL,1,?)", rows)
    for round_id, decision in d.decisions:
        _insert_decisions(db, round_id, started.get(round_id, 0.0), (decision,), schema)
    c = d.columns
    outcomes = [unsparse(o) for o in c["outcomes"]]
    count = len(outcomes)
    db.executemany(f"INSERT INTO {schema}.day_groups VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", zip(
        [d.day] * count, c["model"], c["provider"], c["contract"], c["control"],
        *([o.get(name, 0) for o in outcomes] for name in ("pass", "fail", "inconclusive", "transport_error",
                                                           "not_applicable")),
        c["requests"], c["prompt_tokens"], c["completion_tokens"], c["cost_usd"], c["codes"], c["languages"],
        c["ttft"], c["tps"], [ids.endpoint(m, p) for m, p in zip(c["model"], c["provider"], strict=True)],
        strict=False))
    db.executemany(f"INSERT INTO {schema}.day_classes VALUES (?,?,?,?,?,?,?)", [
        # A compacted day keeps three counts: a maintenance round is one without a verdict, never a failure.
        (d.day, m, p, k.get("failed", 0), k.get("clean", 0), k.get("frozen", 0) + k.get("maintenance", 0),
         ids.endpoint(m, p))
        for m, p, k in d.classes])


def _insert_decisions(db: sqlite3.Connection, round_id: str, ts: float, decisions: Iterable[DecisionRow],
                      schema: str = "main") -> None:
    db.executemany(f"INSERT INTO {schema}.decisions VALUES (?,?,?,?,?,?,?,?,?,?)", [
        (round_id, ts, d.model, d.provider, d.action, d.rule, d.reason, d.until, d.rung,
         json.dumps([list(e) for e in d.evidence])) for d in decisions])


def _ts(iso: str) -> float:
    return parse_time(iso, "started_at").timestamp()
