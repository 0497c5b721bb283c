"""The history's engine, measured: `canary history` over a month, the status page's queries over a
year, and the same span in SQLite (canary's) and in DuckDB.

Builds a history of 64 endpoints x 48 rounds a day with the real code (round_record ->
record_round for the detail window; aggregate_day for older days, as compaction writes them), or
reuses one (--history DIR --now ISO; --keep DIR keeps what it built), then times:
- `canary history` and `canary history --json` as subprocesses (the real command, start-up
  included) over the last 30 days: 1,440 rounds, 368,640 cases;
- inside one process: reading the files (History.open: our codec's decoding into an in-memory
  SQLite database) and the summary's queries apart (scipy.stats, for the intervals, imported first);
- with --year: the status page's data over a year, as `canary site` asks for it
  (History.open of 365 days, then canary/outputs/site/collect.py `collect`);
- with --duckdb DIR (a folder from which `import duckdb` works; not a dependency of canary):
  the month's decoded cases loaded into DuckDB, and the summary's queries there.

    .venv/bin/python benchmarks/history_query.py                      # the month (~2 min to build)
    .venv/bin/python benchmarks/history_query.py --year --duckdb DIR  # and the year (~6 min more)
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _history_rounds import HALF_HOUR, START, fleet, results
from _support import PYTHON, ROOT, bench_line

from canary.history.aggregate import aggregate_day
from canary.history.files import CASE_COLUMNS, encode_day
from canary.history.query import History
from canary.history.rows import round_record
from canary.history.store import DETAIL_DAYS, day_path, read_span, record_round
from canary.outputs.site.collect import Layers, collect
from core.results_read import read_results
from core.store import atomic_write_bytes
from core.times import parse_time, stamp
from judge.suspension.state import JudgeState
from judge.suspension.stats import wilson_interval

ROUNDS_PER_DAY = 48
WINDOWS = (1, 7, 30)


def build(root: Path, days: int, endpoints: int) -> float:
    """A history of `days` days ending at the returned time: detail for the last DETAIL_DAYS."""
    hosts, rng = fleet(endpoints), random.Random(5)
    detail_from = max(0, days - DETAIL_DAYS)
    for day in range(days):
        records = [round_record(read_results(results(hosts, day * ROUNDS_PER_DAY + i, rng)))
                   for i in range(ROUNDS_PER_DAY)]
        if day < detail_from:
            name = records[0].started_at.date().isoformat()
            atomic_write_bytes(day_path(root, name), encode_day(aggregate_day(name, records)))
        else:
            for r in records:
                record_round(root, r, now=r.started_at, detail_days=days + 1)
        print(f"\r  built day {day + 1}/{days}", end="", flush=True)
    print()
    return (START + days * ROUNDS_PER_DAY * HALF_HOUR).timestamp()


def timed_command(root: Path, now: str, *extra: str, runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([PYTHON, "-m", "canary", "history", "--history", str(root), "--now", now, *extra],
                       cwd=ROOT, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def month(root: Path, now: datetime) -> dict[str, float]:
    iso = stamp(now)
    table_s = timed_command(root, iso)
    json_s = timed_command(root, iso, "--json")
    t = time.perf_counter()
    history = History.open(root, now=now, days=31)
    open_s = time.perf_counter() - t
    wilson_interval(1, 2)   # scipy.stats imported before the queries are timed (seconds on a loaded machine)
    t = time.perf_counter()
    summaries = history.summary(WINDOWS)
    query_s = time.perf_counter() - t
    since = now.timestamp() - 30 * 86400
    cases = history.db.execute("SELECT COUNT(*) FROM cases WHERE ts >= ?", (since,)).fetchone()[0]
    print(f"month: {cases} cases in 30 days ({len(summaries)} endpoints), load average {os.getloadavg()[0]:.1f}")
    print(f"  canary history         {table_s:6.2f} s (median of 3, process start-up included)")
    print(f"  canary history --json  {json_s:6.2f} s")
    print(f"  in-process: read the files (decode + SQLite) {open_s:.2f} s, the summary's queries {query_s:.2f} s")
    print(bench_line("history_query", endpoints=len(summaries), days=30, cases=cases, command_s=table_s,
                     json_s=json_s, open_s=open_s, query_s=query_s, load=os.getloadavg()[0]))
    return {"cases": cases, "sqlite_open_s": open_s, "sqlite_query_s": query_s}


def year(root: Path, now: datetime) -> None:
    t = time.perf_counter()
    history = History.open(root, now=now, days=365)
    open_s = time.perf_counter() - t
    t = time.perf_counter()
    page = collect(history, Layers(JudgeState(), ()), ttft_threshold_s=10.0, stale_after_minutes=90)
    site_s = time.perf_counter() - t
    endpoints = sum(len(m["endpoints"]) for m in page["models"])
    print(f"year: read {open_s:.2f} s; the status page's queries (collect) for {endpoints} endpoints {site_s:.2f} s "
          f"(total {open_s + site_s:.2f} s), load average {os.getloadavg()[0]:.1f}")
    print(bench_line("history_site_year", endpoints=endpoints, open_s=open_s, queries_s=site_s,
                     total_s=open_s + site_s, load=os.getloadavg()[0]))


def duckdb_summary(root: Path, now: datetime, folder: Path, sqlite: dict[str, float]) -> None:
    """The month's cases, decoded by our codec, loaded into DuckDB; the summary's queries there."""
    sys.path.insert(0, str(folder))
    import duckdb  # type: ignore[import-not-found]
    import numpy as np

    t = time.perf_counter()
    span = read_span(root, since=(now - timedelta(days=31)).date())
    decode_s = time.perf_counter() - t
    t = time.perf_counter()
    columns: dict[str, Any] = {"ts": np.concatenate([np.full(len(r.columns["model"]), r.started_at.timestamp())
                                                     for r in span.rounds])}
    for name, kind in CASE_COLUMNS.items():
        values = [v for r in span.rounds for v in r.columns[name]]
        columns[name] = np.array(values, dtype=object if kind == "text" else float)
    con = duckdb.connect()
    con.register("decoded", columns)
    con.execute("CREATE TABLE cases AS SELECT * FROM decoded")
    load_s = time.perf_counter() - t
    end = now.timestamp()
    t = time.perf_counter()
    for w in WINDOWS:
        since = end - w * 86400
        con.execute("""SELECT model, provider, contract, COUNT(*) FILTER (outcome = 'pass'),
                       COUNT(*) FILTER (outcome = 'fail'),
                       COUNT(*) FILTER (outcome IN ('inconclusive', 'transport_error'))
                       FROM cases WHERE ts >= ? AND ts <= ? AND control = 0 AND outcome != 'not_applicable'
                       GROUP BY ALL""", [since, end]).fetchall()
        con.execute("""SELECT model, provider, COUNT(*), quantile_disc(ttft_s, 0.5), quantile_disc(ttft_s, 0.95)
                       FROM cases WHERE contract = 'latency' AND ttft_s IS NOT NULL AND control = 0
                       AND ts >= ? AND ts <= ? GROUP BY ALL""", [since, end]).fetchall()
        con.execute("""SELECT model, provider, quantile_disc(tokens_per_s, 0.5) FROM cases
                       WHERE contract = 'refusal' AND tokens_per_s IS NOT NULL AND control = 0
                       AND ts >= ? AND ts <= ? GROUP BY ALL""", [since, end]).fetchall()
    query_s = time.perf_counter() - t
    print(f"DuckDB {duckdb.__version__} on the month: decode (our codec) {decode_s:.2f} s, load {load_s:.2f} s, "
          f"the summary's queries {query_s:.2f} s (SQLite: decode + load {sqlite['sqlite_open_s']:.2f} s, "
          f"queries {sqlite['sqlite_query_s']:.2f} s)")
    print(bench_line("history_engines", cases=sqlite["cases"], sqlite_open_s=sqlite["sqlite_open_s"],
                     sqlite_query_s=sqlite["sqlite_query_s"], decode_s=decode_s, duckdb_load_s=load_s,
                     duckdb_query_s=query_s, load=os.getloadavg()[0]))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--endpoints", type=int, default=64)
    ap.add_argument("--year", action="store_true", help="also time the status page's queries over a year")
    ap.add_argument("--duckdb", type=Path, default=None, help="a folder from which `import duckdb` works")
    ap.add_argument("--history", type=Path, default=None, help="an existing history (a year with --year)")
    ap.add_argument("--now", default=None, help="with --history: the time after its newest round")
    ap.add_argument("--keep", type=Path, default=None, help="build the history into this folder and keep it")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="canary-history-query-"))
    try:
        if args.history is not None:
            root, now = args.history, parse_time(args.now, "--now")
        else:
            root = args.keep or tmp / "history"
            t0 = time.perf_counter()
            now = datetime.fromtimestamp(build(root, 365 if args.year else 31, args.endpoints), UTC)
            print(f"built in {time.perf_counter() - t0:.0f} s (now {stamp(now)})")
        sqlite = month(root, now)
        if args.year:
            year(root, now)
        if args.duckdb is not None:
            duckdb_summary(root, now, args.duckdb, sqlite)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
