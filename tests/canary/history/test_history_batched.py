"""The queries of every endpoint at once answer what the same rounds give in plain Python: the
classes of aggregate.endpoint_rounds (the SQL's twin) and nearest-rank percentiles of the cases."""

from __future__ import annotations

import random
import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest
from history_support import MODEL, PROVIDERS, T0, detailed

from canary.history import db as database
from canary.history.aggregate import bucket, endpoint_rounds
from canary.history.query import _SQL_BUCKET, History
from canary.history.rows import round_record
from canary.history.store import compact, read_round, record_round
from core.results_read import read_results

HALF_HOUR = timedelta(minutes=30)
ROUNDS = 60
NOW = T0 + ROUNDS * HALF_HOUR
OTHER_MODEL = "acme/other-model"


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("batched") / "history"
    rng = random.Random(11)
    for i in range(ROUNDS):
        at = T0 + i * HALF_HOUR
        for model in (MODEL, OTHER_MODEL):
            spec = {p: {"structured": rng.choice(["pass", "pass", "fail", "transport_error"]),
                        "language": rng.choice(["pass", "inconclusive", "fail"])} for p in PROVIDERS[:4]}
            doc = detailed(spec, at=at + (timedelta(seconds=5) if model == OTHER_MODEL else timedelta()),
                           providers=PROVIDERS[:4], model=model,
                           ttft={p: round(rng.uniform(0.2, 9), 3) for p in PROVIDERS[:4]},
                           languages={p: rng.choice(["pt", "ko", "es"]) for p in PROVIDERS[:4]})
            record_round(root, round_record(read_results(doc)), now=at, detail_days=10_000)
    compact(root, now=NOW, detail_days=0)   # the first two days become day files, the last stays detail
    return root


@pytest.fixture(scope="module")
def history(root: Path) -> History:
    return History.open(root, now=NOW, days=40)


def test_every_endpoints_timeline_holds_the_classes_of_its_rounds(history: History, root: Path) -> None:
    expected: dict[tuple[str, str], list[tuple[str, str, tuple[str, ...]]]] = {}
    for path in sorted(root.glob("rounds/*/*/*.xz")):   # the day of detail: a day's window
        record = read_round(path)
        for er in endpoint_rounds(record):
            expected.setdefault((er.model, er.provider), []).append((record.round_id, er.klass, er.codes))
    batched = history.timelines(days=1)
    assert set(batched) == set(history.endpoints()) == set(expected) and len(batched) == 8
    for endpoint, points in batched.items():
        assert [(p.round_id, p.klass, p.codes) for p in points] == sorted(expected[endpoint], key=lambda x: x[0])
    assert {p.klass for points in batched.values() for p in points} >= {"failed", "clean"}


def _nearest_rank(values: list[float], q: int) -> float:
    ordered = sorted(values)
    return ordered[(len(ordered) * q + 99) // 100 - 1]


def test_every_endpoints_ttft_series_holds_the_nearest_rank_percentiles_of_its_buckets(history: History) -> None:
    start, width = NOW.timestamp() - 86400, 2 * 3600
    rows = history.db.execute("SELECT model, provider, ts, ttft_s FROM cases WHERE contract = 'latency' "
                              "AND control = 0 AND ttft_s IS NOT NULL AND ts >= ? AND ts <= ?",
                              (start, NOW.timestamp())).fetchall()
    buckets: dict[tuple[str, str], dict[int, list[float]]] = {}
    for m, p, ts, ttft in rows:
        buckets.setdefault((m, p), {}).setdefault(int((ts - start) / width), []).append(ttft)
    batched = history.ttft_series(days=1, bucket_hours=2)
    for endpoint, points in batched.items():
        assert [(p.samples, p.ttft_p50, p.ttft_p95) for p in points] == [
            (len(v), _nearest_rank(v, 50), _nearest_rank(v, 95)) for _, v in sorted(buckets[endpoint].items())]
    assert sum(len(points) for points in batched.values()) > 8


def test_the_batched_queries_keep_to_one_model_when_asked(history: History) -> None:
    assert {m for m, _ in history.timelines(days=2, model=OTHER_MODEL)} == {OTHER_MODEL}
    assert {m for m, _ in history.ttft_series(model=OTHER_MODEL)} == {OTHER_MODEL}
    assert {m for m, _ in history.daily_series(model=OTHER_MODEL)} == {OTHER_MODEL}


def test_daily_series_cover_compacted_and_detail_days(history: History) -> None:
    series = history.daily_series()
    assert history.db.execute("SELECT COUNT(DISTINCT day) FROM day_groups").fetchone()[0] == 2
    assert history.db.execute("SELECT COUNT(DISTINCT day) FROM cases").fetchone()[0] == 1
    for points in series.values():
        days = [p.day for p in points]
        assert days == sorted(days) and len(days) == 3   # two compacted days and one of detail
        assert all(p.ttft_p50 is not None and p.failed + p.clean + p.frozen > 0 for p in points)


@pytest.mark.parametrize("native", [True, False], ids=["sqlite-math", "python-math"])
def test_the_sql_histogram_bucket_is_the_python_one(native: bool) -> None:
    conn = sqlite3.connect(":memory:")
    if native:
        database.math_functions(conn)
    else:  # a SQLite built without its math functions gets Python's
        import math
        conn.create_function("log10", 1, math.log10)
        conn.create_function("floor", 1, math.floor)
    rng = random.Random(3)
    values = [10 ** (k / 20) for k in range(-70, 90)] + [rng.uniform(0, 200) for _ in range(2000)] + [0.0, 1e-9, 0.001]
    sql = f"SELECT {_SQL_BUCKET.format(v='?')}"
    assert [conn.execute(sql, (v,)).fetchone()[0] for v in values] == [bucket(v) for v in values]


def test_summary_and_current_read_the_same_from_a_second_history_of_the_same_files(history: History,
                                                                                   tmp_path: Path) -> None:
    again = History(history.db, NOW)   # no memo carried over: computed afresh
    assert again.summary() == history.summary() and again.current(10.0) == history.current(10.0)
