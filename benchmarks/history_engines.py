"""SQLite or DuckDB for the history queries: the same month of cases, loaded and queried by both.

Why this exists: the history module had to pick an embedded engine "by measurement and by install
size". This loads one history span into SQLite (as canary does) and into DuckDB, and times the
queries `canary history` runs (pass rates per contract, TTFT and tokens/s percentiles over 24 h,
7 d and 30 d). DuckDB is not a dependency of canary: point --duckdb at a folder where it is
importable (e.g. `pip install --target /tmp/duckdb duckdb`); without it only SQLite is timed.

    .venv/bin/python benchmarks/history_engines.py --history DIR --now ISO [--duckdb /tmp/duckdb]
"""

from __future__ import annotations

import argparse
import csv
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _support import bench_line

from canary.history.query import History
from core import times

WINDOWS = (1, 7, 30)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--history", type=Path, required=True)
    ap.add_argument("--now", required=True)
    ap.add_argument("--duckdb", type=Path, default=None, help="a folder from which `import duckdb` works")
    args = ap.parse_args()
    now = times.parse_time(args.now, "--now")
    t = time.perf_counter()
    history = History.open(args.history, now=now, days=31)
    sqlite_open = time.perf_counter() - t
    t = time.perf_counter()
    history.summary(WINDOWS)
    sqlite_query = time.perf_counter() - t
    cases = history.db.execute("SELECT COUNT(*) FROM cases").fetchone()[0]
    print(f"SQLite: {cases} cases; open (decode + load) {sqlite_open:.2f} s; summary queries {sqlite_query:.2f} s")
    fields: dict[str, float] = {"cases": cases, "sqlite_open_s": sqlite_open, "sqlite_query_s": sqlite_query}
    if args.duckdb is not None:
        sys.path.insert(0, str(args.duckdb))
        import duckdb  # type: ignore[import-not-found]

        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "cases.csv"
            with open(path, "w", newline="", encoding="utf-8") as handle:
                writer = csv.writer(handle)
                writer.writerow(["ts", "model", "provider", "contract", "outcome", "control", "ttft_s", "tokens_per_s"])
                writer.writerows(history.db.execute(
                    "SELECT ts, model, provider, contract, outcome, control, ttft_s, tokens_per_s FROM cases"))
            con = duckdb.connect()
            t = time.perf_counter()
            con.execute(f"CREATE TABLE cases AS SELECT * FROM read_csv_auto('{path}')")
            duck_load = time.perf_counter() - t
        end = now.timestamp()
        t = time.perf_counter()
        for w in WINDOWS:
            since = end - w * 86400
            con.execute("""SELECT model, provider, contract, SUM(CASE WHEN outcome = 'pass' THEN 1 ELSE 0 END),
                           SUM(CASE WHEN outcome = 'fail' THEN 1 ELSE 0 END) FROM cases
                           WHERE ts >= ? AND ts <= ? AND control = 0 GROUP BY ALL""", [since, end]).fetchall()
            con.execute("""SELECT model, provider, COUNT(*), quantile_disc(ttft_s, 0.5), quantile_disc(ttft_s, 0.95)
                           FROM cases WHERE contract = 'latency' AND ttft_s IS NOT NULL AND control = 0
                           AND ts >= ? AND ts <= ? GROUP BY ALL""", [since, end]).fetchall()
            con.execute("""SELECT model, provider, quantile_disc(tokens_per_s, 0.5) FROM cases
                           WHERE contract = 'refusal' AND tokens_per_s IS NOT NULL AND control = 0
                           AND ts >= ? AND ts <= ? GROUP BY ALL""",
                        [since, end]).fetchall()
        duck_query = time.perf_counter() - t
        print(f"DuckDB {duckdb.__version__}: load from CSV {duck_load:.2f} s; the same queries {duck_query:.2f} s")
        fields.update(duckdb_load_s=duck_load, duckdb_query_s=duck_query)
    print(bench_line("history_engines", **fields))
    return 0


if __name__ == "__main__":
    sys.exit(main())
