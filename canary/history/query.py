"""The typed query API over the round history (SQL on an in-memory SQLite database, canary/history/db.py).

`History.open(root, now=...)` loads the last `days` days; every method is one or a few SQL queries
returning frozen dataclasses. The whole API in one place: canary/history/__init__.py.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from canary.history import db as database
from canary.history.aggregate import _SMALLEST as SMALLEST
from canary.history.aggregate import HISTOGRAM_STEPS, histogram_percentile, merge_histograms
from canary.history.files import unsparse
from canary.history.store import DETAIL_DAYS, read_span
from canary.history.tiers import Tier, TierSignals, endpoint_tier
from core.times import parse_time
from core.vocabulary import LATENCY, REFUSAL
from judge.suspension.decisions import SUSPENDING, Action
from judge.suspension.stats import wilson_interval

DAY_S = 86400.0
# Tokens per second of the refusal contract's case: the same long request to every host every round (the
# latency probe stops at 32 tokens, the language prompt changes with the language).
TPS_CONTRACT = REFUSAL


@dataclass(frozen=True, slots=True)
class PassRate:
    """Pass rate of one contract on one endpoint over a window: passes / (passes + fails), with the 95 %
    Wilson interval; inconclusive cases and transport errors counted apart (`other`), controls left out."""

    model: str
    provider: str
    contract: str
    window_days: float
    passes: int
    fails: int
    other: int
    rate: float | None
    low: float | None
    high: float | None


@dataclass(frozen=True, slots=True)
class Latency:
    """TTFT percentiles of the latency contract's cases, output tokens per second of the refusal contract's."""

    model: str
    provider: str
    window_days: float
    samples: int
    ttft_p50: float | None
    ttft_p95: float | None
    tps_p50: float | None


@dataclass(frozen=True, slots=True)
class WindowSummary:
    days: float
    rates: tuple[PassRate, ...]
    latency: Latency
    suspensions: int            # suspend and would_suspend decisions in the window


@dataclass(frozen=True, slots=True)
class EndpointSummary:
    """One row of `canary history`: one endpoint over each window."""

    model: str
    provider: str
    windows: tuple[WindowSummary, ...]


@dataclass(frozen=True, slots=True)
class TimelinePoint:
    """One endpoint in one round: failed | clean | frozen, and the codes of what did not pass."""

    round_id: str
    at: datetime
    klass: str
    codes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SeriesPoint:
    """TTFT and token rate of one endpoint over one time bucket (exact percentiles)."""

    start: datetime
    samples: int
    ttft_p50: float | None
    ttft_p95: float | None
    tps_p50: float | None


@dataclass(frozen=True, slots=True)
class DayPoint:
    """One endpoint over one UTC day, the same whether the day is compacted or not (percentiles
    from histograms, see aggregate.py): for charts longer than the detail window."""

    day: str
    failed: int
    clean: int
    frozen: int
    passes: int
    fails: int
    other: int
    ttft_p50: float | None
    ttft_p95: float | None
    tps_p50: float | None


@dataclass(frozen=True, slots=True)
class GridCell:
    """The language contract of one provider in one language over a window."""

    provider: str
    language: str
    passes: int
    fails: int
    other: int


@dataclass(frozen=True, slots=True)
class DecisionEntry:
    round_id: str
    at: datetime
    model: str
    provider: str
    action: str
    rule: str
    reason: str
    until: str | None
    evidence: tuple[tuple[str, str, str], ...]


@dataclass(frozen=True, slots=True)
class RoundInfo:
    round_id: str
    at: datetime
    complete: bool
    mode: str | None


@dataclass(frozen=True, slots=True)
class EndpointNow:
    """The current state of one endpoint: its tier (tiers.py) and why."""

    model: str
    provider: str
    tier: Tier
    last_round_at: datetime | None
    last_class: str | None


class History:
    """A read-only view of the history of the last `days` days before `now`."""

    def __init__(self, db: sqlite3.Connection, now: datetime) -> None:
        self.db = db
        self.now = now
        self._endpoint_names: dict[int, tuple[str, str]] | None = None
        self._latency_memo: dict[tuple[float, str | None], tuple[Latency, ...]] = {}

    @classmethod
    def open(cls, root: Path, *, now: datetime, days: int = DETAIL_DAYS) -> History:
        """The history of the `days` days before `now`."""
        span = read_span(Path(root), since=(now - timedelta(days=days)).date())
        return cls(database.build(span.rounds, span.days), now)

    def _since(self, days: float) -> float:
        return self.now.timestamp() - days * DAY_S

    def _rows(self, sql: str, *params: Any) -> list[tuple[Any, ...]]:
        return self.db.execute(sql, params).fetchall()

    # -- what `canary history` shows -------------------------------------------------------

    def endpoints(self, model: str | None = None) -> tuple[tuple[str, str], ...]:
        """Every endpoint with full-detail cases in the loaded span."""
        return tuple(self._rows("SELECT model, provider FROM endpoints WHERE detail = 1 AND (?1 IS NULL OR model = ?1) "
                                "ORDER BY model, provider", model))

    def _names(self) -> dict[int, tuple[str, str]]:
        """eid -> (model, provider) of every endpoint loaded (db.py gives the ids)."""
        if self._endpoint_names is None:
            rows = self._rows("SELECT eid, model, provider FROM endpoints")
            self._endpoint_names = {eid: (m, p) for eid, m, p in rows}
        return self._endpoint_names

    def pass_rates(self, windows: Sequence[float], model: str | None = None) -> dict[float, tuple[PassRate, ...]]:
        """Per window: each endpoint's pass rate per contract (PassRate), in one scan of the cases (a
        conditional sum per window)."""
        sums = ", ".join(f"SUM(ts >= ?{4 + i}), SUM(ts >= ?{4 + i} AND outcome = 'pass'), "
                         f"SUM(ts >= ?{4 + i} AND outcome = 'fail'), "
                         f"SUM(ts >= ?{4 + i} AND outcome IN ('inconclusive', 'transport_error'))"
                         for i in range(len(windows)))
        rows = self._rows(f"""
            SELECT eid, contract, {sums} FROM cases
            WHERE ts >= ?1 AND ts <= ?2 AND control = 0 AND outcome != 'not_applicable' AND (?3 IS NULL OR model = ?3)
            GROUP BY eid, contract""", min(self._since(w) for w in windows) if windows else 0.0, self.now.timestamp(),
                          model, *(self._since(w) for w in windows))
        names = self._names()
        ordered = sorted(rows, key=lambda r: (names[r[0]], r[1]))
        out: dict[float, tuple[PassRate, ...]] = {}
        for i, w in enumerate(windows):
            at = 2 + 4 * i
            out[w] = tuple(_rate(*names[r[0]], r[1], w, r[at + 1], r[at + 2], r[at + 3]) for r in ordered if r[at])
        return out

    def latency(self, windows: Sequence[float], model: str | None = None) -> dict[float, tuple[Latency, ...]]:
        """Per window: each endpoint's TTFT p50/p95 and tokens/s p50 (Latency), for every window in one
        sort of the cases. Remembered per History: the status page asks for the same windows more than once."""
        missing = [w for w in windows if (w, model) not in self._latency_memo]
        if missing:
            for w, rows in self._latency_windows(missing, model).items():
                self._latency_memo[(w, model)] = rows
        return {w: self._latency_memo[(w, model)] for w in windows}

    def _latency_windows(self, windows: Sequence[float], model: str | None) -> dict[float, tuple[Latency, ...]]:
        ttft = {(w, m, p): (n, p50, p95) for w, m, p, n, p50, p95 in self._percentiles(
            "ttft_s", "contract = 'latency' AND ttft_s IS NOT NULL", windows, model)}
        tps = {(w, m, p): p50 for w, m, p, _, p50, _ in self._percentiles(
            "tokens_per_s", f"contract = '{TPS_CONTRACT}' AND tokens_per_s IS NOT NULL", windows, model)}
        out: dict[float, tuple[Latency, ...]] = {}
        for window in windows:
            keys = sorted({(m, p) for w, m, p in set(ttft) | set(tps) if w == window})
            out[window] = tuple(Latency(m, p, window, *ttft.get((window, m, p), (0, None, None)),
                                        tps.get((window, m, p))) for m, p in keys)
        return out

    def _percentiles(self, column: str, where: str, windows: Sequence[float],
                     model: str | None) -> list[tuple[Any, ...]]:
        """(window, model, provider, n, p50, p95) of `column` per endpoint and window, by nearest rank (_ranked)."""
        values = ", ".join("(?, ?)" for _ in windows)
        params: list[Any] = [x for w in windows for x in (w, self._since(w))]
        rows = self._ranked(f"""
            WITH w(days, since) AS (VALUES {values})
            SELECT w.days, eid, {column} FROM cases JOIN w ON ts >= w.since
            WHERE {where} AND control = 0 AND ts <= ? AND (? IS NULL OR model = ?)""",
                            (*params, self.now.timestamp(), model, model))
        names = self._names()
        return [(days, *names[eid], n, p50, p95) for days, eid, n, p50, p95 in rows]

    def _ranked(self, select: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        """(key1, key2, n, p50, p95) per (key1, key2) of `select` (which yields key1, key2, value), by
        nearest rank (the value at rank ceil(q * n)).

        The values are written to a temporary table sorted by (key1, key2, value), so each group's
        values have consecutive ids and a rank is one id lookup: one sort for every group, two to
        three times faster in SQLite than ROW_NUMBER() over partitions."""
        self.db.execute("DROP TABLE IF EXISTS temp.sample")
        self.db.execute("CREATE TEMP TABLE sample(id INTEGER PRIMARY KEY, k1, k2, v REAL)")
        self.db.execute(f"INSERT INTO sample(k1, k2, v) SELECT * FROM ({select}) ORDER BY 1, 2, 3", params)
        return self._rows("""
            WITH g AS (SELECT k1, k2, COUNT(*) AS n, MIN(id) AS first FROM sample GROUP BY k1, k2)
            SELECT g.k1, g.k2, g.n, a.v, b.v FROM g
            JOIN sample a ON a.id = g.first + (g.n * 50 + 99) / 100 - 1
            JOIN sample b ON b.id = g.first + (g.n * 95 + 99) / 100 - 1""")

    def suspensions(self, window_days: float, model: str | None = None) -> dict[tuple[str, str], int]:
        rows = self._rows("SELECT model, provider, COUNT(*) FROM decisions "
                          "WHERE action IN ('suspend', 'would_suspend') "
                          "AND ts >= ?1 AND ts <= ?2 AND (?3 IS NULL OR model = ?3) GROUP BY model, provider",
                          self._since(window_days), self.now.timestamp(), model)
        return {(m, p): n for m, p, n in rows}

    def summary(self, windows: Sequence[float] = (1, 7, 30), model: str | None = None) -> tuple[EndpointSummary, ...]:
        """Per endpoint, per window: pass rates per contract, TTFT p50/p95, suspensions."""
        latency = self.latency(windows, model)
        rates = self.pass_rates(windows, model)
        per_window = [(w, rates[w], {(x.model, x.provider): x for x in latency[w]},
                       self.suspensions(w, model)) for w in windows]
        out = []
        for m, p in self.endpoints(model):
            summaries = tuple(WindowSummary(
                w, tuple(r for r in rates if (r.model, r.provider) == (m, p)),
                lat.get((m, p)) or Latency(m, p, w, 0, None, None, None), susp.get((m, p), 0))
                for w, rates, lat, susp in per_window)
            out.append(EndpointSummary(m, p, summaries))
        return tuple(out)

    # -- what the status page shows ------------------------------------------------------

    def timelines(self, days: float = 7, model: str | None = None) -> dict[tuple[str, str], tuple[TimelinePoint, ...]]:
        """Every endpoint's rounds (endpoints()), in one query: {(model, provider): points}, oldest first."""
        database.prepare_endpoints(self.db)
        out: dict[tuple[str, str], list[TimelinePoint]] = {e: [] for e in self.endpoints(model)}
        names = self._names()
        for eid, r, ts, k, c in self._rows(
                "SELECT eid, round_id, ts, klass, codes FROM endpoint_rounds WHERE ts >= ? AND ts <= ? "
                "AND (? IS NULL OR model = ?) ORDER BY eid, ts", self._since(days), self.now.timestamp(), model, model):
            out.setdefault(names[eid], []).append(TimelinePoint(r, _dt(ts), k, tuple(sorted(c.split()))))
        return {e: tuple(points) for e, points in out.items()}

    def ttft_series(self, days: float = 7, bucket_hours: float = 1,
                    model: str | None = None) -> dict[tuple[str, str], tuple[SeriesPoint, ...]]:
        """Every endpoint's TTFT and token rate per bucket of `bucket_hours` (endpoints()), in two sorts:
        {(model, provider): points}."""
        width, start = bucket_hours * 3600, self._since(days)
        span = "control = 0 AND ts >= ?1 AND ts <= ?3 AND (?4 IS NULL OR model = ?4)"
        bucket = "CAST((ts - ?1) / ?2 AS INT)"
        params = (start, width, self.now.timestamp(), model)
        ttft = self._ranked(f"SELECT eid, {bucket}, ttft_s FROM cases WHERE {span} AND contract = 'latency' "
                            "AND ttft_s IS NOT NULL", params)
        tps = {(e, b): p50 for e, b, _, p50, _ in self._ranked(
            f"SELECT eid, {bucket}, tokens_per_s FROM cases WHERE {span} AND contract = '{TPS_CONTRACT}' "
            "AND tokens_per_s IS NOT NULL", params)}
        names = self._names()
        out: dict[tuple[str, str], list[SeriesPoint]] = {e: [] for e in self.endpoints(model)}
        for eid, b, n, p50, p95 in sorted(ttft):
            out.setdefault(names[eid], []).append(SeriesPoint(_dt(start + b * width), n, p50, p95, tps.get((eid, b))))
        return {e: tuple(points) for e, points in out.items()}

    def daily_series(self, model: str | None = None) -> dict[tuple[str, str], tuple[DayPoint, ...]]:
        """Every endpoint's days in the loaded span (open with a longer `days`), compacted days included, in a few
        grouped queries; percentiles from the histograms on every day, so compaction never changes a chart."""
        database.prepare_endpoints(self.db)
        which = "(?1 IS NULL OR model = ?1)"
        hist: dict[tuple[int, str, str], dict[int, int]] = {}
        for kind, column, contract in (("ttft", "ttft_s", LATENCY), ("tps", "tokens_per_s", TPS_CONTRACT)):
            for eid, day, b, n in self._rows(f"""
                    SELECT eid, day, {_SQL_BUCKET.format(v=column)} AS b, COUNT(*) FROM cases
                    WHERE control = 0 AND contract = '{contract}' AND {column} IS NOT NULL AND {which}
                    GROUP BY eid, day, b""", model):
                hist.setdefault((eid, kind, day), {})[b] = n
        counts = {(e, d): (k, f, o) for e, d, k, f, o in self._rows(f"""
            SELECT eid, day, SUM(outcome = 'pass'), SUM(outcome = 'fail'),
                   SUM(outcome IN ('inconclusive', 'transport_error'))
            FROM cases WHERE control = 0 AND {which} GROUP BY eid, day""", model)}
        classes = {(e, d): (f, c, z) for e, d, f, c, z in self._rows(f"""
            SELECT eid, day, SUM(klass = 'failed'), SUM(klass = 'clean'), SUM(klass IN ('frozen', 'maintenance'))
            FROM endpoint_rounds
            WHERE {which} GROUP BY eid, day""", model)}
        for eid, day, contract, k, f, o, ttft, tps in self._rows(f"""
                SELECT eid, day, contract, n_pass, n_fail, n_inconclusive + n_transport_error, ttft, tps
                FROM day_groups WHERE control = 0 AND {which}""", model):
            before = counts.get((eid, day), (0, 0, 0))
            counts[(eid, day)] = (before[0] + k, before[1] + f, before[2] + o)
            if contract == LATENCY:
                hist[(eid, "ttft", day)] = merge_histograms([hist.get((eid, "ttft", day), {}), unsparse(ttft, int)])
            if contract == TPS_CONTRACT:
                hist[(eid, "tps", day)] = merge_histograms([hist.get((eid, "tps", day), {}), unsparse(tps, int)])
        classes.update({(e, d): (f, c, z) for e, d, f, c, z in self._rows(
            f"SELECT eid, day, failed, clean, frozen FROM day_classes WHERE {which}", model)})
        names = self._names()
        out: dict[tuple[str, str], list[DayPoint]] = {}
        for eid, day in sorted(set(counts) | set(classes), key=lambda k: (names[k[0]], k[1])):
            ttft_h, tps_h = hist.get((eid, "ttft", day), {}), hist.get((eid, "tps", day), {})
            out.setdefault(names[eid], []).append(DayPoint(
                day, *classes.get((eid, day), (0, 0, 0)), *counts.get((eid, day), (0, 0, 0)),
                histogram_percentile(ttft_h, 50), histogram_percentile(ttft_h, 95), histogram_percentile(tps_h, 50)))
        return {e: tuple(points) for e, points in out.items()}

    def language_grid(self, model: str, days: float = 7) -> tuple[GridCell, ...]:
        rows = self._rows("""
            SELECT provider, language, SUM(outcome = 'pass'), SUM(outcome = 'fail'),
                   SUM(outcome IN ('inconclusive', 'transport_error'))
            FROM cases WHERE model = ? AND contract = 'language' AND language IS NOT NULL AND control = 0
              AND ts >= ? AND ts <= ? GROUP BY provider, language ORDER BY provider, language""",
                          model, self._since(days), self.now.timestamp())
        return tuple(GridCell(*r) for r in rows)

    def latest_decisions(self, limit: int = 20, days: float = 30) -> tuple[DecisionEntry, ...]:
        rows = self._rows("SELECT round_id, ts, model, provider, action, rule, reason, until, evidence FROM decisions "
                          "WHERE ts >= ? AND ts <= ? ORDER BY ts DESC, rowid DESC LIMIT ?",
                          self._since(days), self.now.timestamp(), limit)
        return tuple(DecisionEntry(r, _dt(ts), m, p, a, ru, re, u, tuple(tuple(e) for e in json.loads(ev)))
                     for r, ts, m, p, a, ru, re, u, ev in rows)

    def classes_between(self, model: str, provider: str, start: datetime, end: datetime) -> dict[str, int]:
        """{failed|clean|frozen|maintenance: rounds} of one endpoint with start <= round time <= end."""
        database.prepare_endpoints(self.db)
        rows = self._rows("SELECT klass, COUNT(*) FROM endpoint_rounds WHERE model = ? AND provider = ? "
                          "AND ts >= ? AND ts <= ? GROUP BY klass", model, provider, start.timestamp(), end.timestamp())
        return dict(rows)

    def contract_failures(self, round_id: str, model: str) -> dict[str, tuple[int, int]]:
        """{contract: (endpoints failing it, endpoints probed on it)} in one round of one model."""
        rows = self._rows("SELECT contract, SUM(outcome = 'fail'), COUNT(DISTINCT provider) FROM cases "
                          "WHERE round_id = ? AND model = ? AND control = 0 GROUP BY contract", round_id, model)
        return {c: (f, n) for c, f, n in rows}

    def newest_round(self) -> RoundInfo | None:
        row = self.db.execute("SELECT round_id, ts, complete, mode FROM rounds WHERE ts <= ? ORDER BY ts DESC LIMIT 1",
                              (self.now.timestamp(),)).fetchone()
        return None if row is None else RoundInfo(row[0], _dt(row[1]), bool(row[2]), row[3])

    def active_suspensions(self) -> dict[tuple[str, str], str]:
        """(model, provider) -> the mode (enforce | observe) of suspensions active at `now`, from the decisions."""
        rows = self._rows("""
            SELECT model, provider, action, until FROM decisions d
            WHERE action IN ('suspend', 'would_suspend', 'restore', 'expired', 'lift') AND ts <= ?1
              AND rowid = (SELECT rowid FROM decisions e WHERE e.model = d.model AND e.provider = d.provider
                           AND e.action IN ('suspend', 'would_suspend', 'restore', 'expired', 'lift') AND e.ts <= ?1
                           ORDER BY e.ts DESC, e.rowid DESC LIMIT 1)""", self.now.timestamp())
        now = self.now
        return {(m, p): "enforce" if a == Action.SUSPEND else "observe" for m, p, a, u in rows
                if a in SUSPENDING and u and parse_time(u, "until") > now}

    def current(self, ttft_threshold_s: float, model: str | None = None) -> tuple[EndpointNow, ...]:
        """Every endpoint seen in the last 7 days, with its tier now."""
        suspended = self.active_suspensions()
        latency = self.latency((0.25, 1, 7), model)
        lat6, lat24, lat7 = ({(x.model, x.provider): x for x in latency[w]} for w in (0.25, 1, 7))
        timelines = self.timelines(7, model)
        out = []
        for m, p in self.endpoints(model):
            points = timelines.get((m, p), ())
            classes = [pt.klass for pt in reversed(points)]
            mode = suspended.get((m, p))
            signals = TierSignals(
                classes=classes, ttft_p95_24h=_get(lat24, m, p, "ttft_p95"),
                ttft_p50_6h=_get(lat6, m, p, "ttft_p50"), samples_6h=int(_get(lat6, m, p, "samples") or 0),
                ttft_p50_7d=_get(lat7, m, p, "ttft_p50"), samples_7d=int(_get(lat7, m, p, "samples") or 0),
                suspension_mode=mode)
            out.append(EndpointNow(m, p, endpoint_tier(signals, ttft_threshold_s),
                                   points[-1].at if points else None, points[-1].klass if points else None))
        return tuple(out)


# aggregate.bucket() in SQL (the same IEEE operations on the same C log10, so the same bucket).
_SQL_BUCKET = f"CAST(floor({HISTOGRAM_STEPS} * log10(max({{v}}, {SMALLEST!r})) + 1e-9) AS INT)"


def _rate(m: str, p: str, c: str, window: float, k: int, f: int, o: int) -> PassRate:
    if k + f == 0:
        return PassRate(m, p, c, window, k, f, o, None, None, None)
    low, high = wilson_interval(k, k + f)
    return PassRate(m, p, c, window, k, f, o, k / (k + f), low, high)


def _get(table: dict[tuple[str, str], Latency], m: str, p: str, name: str) -> Any:
    row = table.get((m, p))
    return None if row is None else getattr(row, name)


def _dt(ts: float) -> datetime:
    return datetime.fromtimestamp(ts, UTC)
