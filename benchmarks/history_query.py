"""How long `canary history` takes over a month of rounds, and the status page's queries over a year.

Builds a history of 64 endpoints x 48 rounds a day with the real code (round_record ->
record_round for the detail window; aggregate_day for older days, as compaction writes them),
then times:
- `canary history` and `canary history --json` as subprocesses (the real command, start-up
  included) over the last 30 days: 1,440 rounds, 368,640 cases;
- inside one process: reading the files (History.open) and the summary query apart;
- with --year: the data a status page needs over a year (History.open of 365 days, then
  current(), timeline, ttft_series and daily_series for every endpoint, language_grid,
  latest_decisions): the query side of building the site.

    .venv/bin/python benchmarks/history_query.py            # the month (~2 min to build)
    .venv/bin/python benchmarks/history_query.py --year     # and the year (~6 min more)
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _history_rounds import HALF_HOUR, MODEL, START, fleet, results
from _support import PYTHON, ROOT, bench_line

from canary.history.aggregate import aggregate_day
from canary.history.files import encode_day
from canary.history.query import History
from canary.history.rows import round_record
from canary.history.store import DETAIL_DAYS, day_path, record_round
from core.results import read_results
from core.store import atomic_write_bytes
from core.times import stamp

ROUNDS_PER_DAY = 48


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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--endpoints", type=int, default=64)
    ap.add_argument("--year", action="store_true", help="also time the status page's queries over a year")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="canary-history-query-"))
    try:
        month = tmp / "month"
        t0 = time.perf_counter()
        end = build(month, 31, args.endpoints)
        build_s = time.perf_counter() - t0
        now = datetime.fromtimestamp(end, UTC)
        iso = stamp(now)
        table_s = timed_command(month, iso)
        json_s = timed_command(month, iso, "--json")
        t = time.perf_counter()
        history = History.open(month, now=now, days=31)
        open_s = time.perf_counter() - t
        t = time.perf_counter()
        summaries = history.summary((1, 7, 30))
        query_s = time.perf_counter() - t
        cases = history.db.execute("SELECT COUNT(*) FROM cases WHERE ts >= ?", (end - 30 * 86400,)).fetchone()[0]
        size_mib = sum(f.stat().st_size for f in month.rglob("*") if f.is_file()) / 2**20
        print(f"month: {cases} cases in 30 days ({len(summaries)} endpoints), files {size_mib:.1f} MiB, "
              f"built in {build_s:.0f} s")
        print(f"  canary history         {table_s:6.2f} s (median of 3, process start-up included)")
        print(f"  canary history --json  {json_s:6.2f} s")
        print(f"  in-process: read the files {open_s:.2f} s, the summary queries {query_s:.2f} s")
        print(bench_line("history_query", endpoints=args.endpoints, days=30, cases=cases, command_s=table_s,
                         json_s=json_s, open_s=open_s, query_s=query_s))
        if args.year:
            year = tmp / "year"
            t0 = time.perf_counter()
            end = build(year, 365, args.endpoints)
            now = datetime.fromtimestamp(end, UTC)
            print(f"year built in {time.perf_counter() - t0:.0f} s")
            t = time.perf_counter()
            history = History.open(year, now=now, days=365)
            open_s = time.perf_counter() - t
            t = time.perf_counter()
            states = history.current(10.0)
            for s in states:
                history.timeline(s.model, s.provider, 30)
                history.ttft_series(s.model, s.provider, 7)
                history.daily_series(s.model, s.provider)
            history.language_grid(MODEL, 7)
            history.latest_decisions(50)
            history.newest_round()
            site_s = time.perf_counter() - t
            print(f"year: read {open_s:.2f} s; site queries for {len(states)} endpoints {site_s:.2f} s "
                  f"(total {open_s + site_s:.2f} s)")
            print(bench_line("history_site_year", endpoints=len(states), open_s=open_s, queries_s=site_s,
                             total_s=open_s + site_s))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
