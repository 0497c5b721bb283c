"""How long `canary site` takes from a year of history, and `canary history` over a month of it.

Builds (or reuses, with --history) a year of 64 endpoints x 48 rounds a day with the real code
(benchmarks/history_query.py's builder: round files for the last 35 days, day files before), then
times, as subprocesses (process start-up included, median of --runs):

- `canary site --out DIR` (reads 365 days: strips, rates, the hourly and daily series, feeds, badges)
- `canary history` (the 30-day table)

and, inside one process, where the site's time goes: History.open, the queries (collect), writing.
Prints the sizes of what the site holds. The site needs ECharts (npm ci).

    .venv/bin/python benchmarks/site_build.py                     # builds the year first (~9 min)
    .venv/bin/python benchmarks/site_build.py --history DIR --now 2027-01-01T00:00:00Z --keep
"""

from __future__ import annotations

import argparse
import os
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

from _support import PYTHON, ROOT, bench_line
from history_query import build

from canary.history.query import History
from canary.outputs.site.build import HISTORY_DAYS, build_site
from canary.outputs.site.collect import Layers, collect
from core.config import parse_config
from core.times import parse_time, stamp
from judge.suspension.state import JudgeState


def timed(args: list[str], runs: int, source: Path = ROOT) -> float:
    """Median wall time of `canary ARGS` run from the source tree `source` (another commit's code)."""
    env = {**os.environ, "PYTHONPATH": str(source)}
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([PYTHON, "-m", "canary", *args], cwd=source, env=env, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--history", type=Path, default=None, help="an existing history (default: build a year)")
    ap.add_argument("--now", default=None, help="with --history: the time after its newest round")
    ap.add_argument("--keep", action="store_true", help="keep the built history and site")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--before", type=Path, default=None,
                    help="a source tree of older code (git archive COMMIT canary judge probes simulator | tar -x "
                         "-C DIR) to time the same commands with, alternating with this tree's")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="canary-site-bench-"))
    try:
        if args.history is None:
            root = tmp / "history"
            now = datetime.fromtimestamp(build(root, HISTORY_DAYS, 64), UTC)
        else:
            root, now = args.history, parse_time(args.now, "--now")
        iso = stamp(now)
        out = tmp / "site"
        none = tmp / "no-state" / "canary-state.json"
        load = os.getloadavg()[0]
        site_args = ["site", "--out", str(out), "--history", str(root), "--state", str(none), "--now", iso,
                     "--echarts", str(ROOT / "node_modules/echarts/dist/echarts.min.js")]
        history_args = ["history", "--history", str(root), "--now", iso]
        if args.before is not None:
            # Alternate old and new runs so both see the same load on a shared machine.
            pairs = [(timed(site_args, 1, args.before.resolve()), timed(site_args, 1),
                      timed(history_args, 1, args.before.resolve()), timed(history_args, 1)) for _ in range(args.runs)]
            old_site, new_site, old_hist, new_hist = (statistics.median(x) for x in zip(*pairs, strict=True))
            print(f"before ({args.before}) / after, median of {args.runs} alternated runs, load {load:.1f}:")
            print(f"  canary site --out   {old_site:6.2f} s / {new_site:6.2f} s")
            print(f"  canary history      {old_hist:6.2f} s / {new_hist:6.2f} s")
            print(bench_line("site_build_before_after", site_before_s=old_site, site_after_s=new_site,
                             history_before_s=old_hist, history_after_s=new_hist, load=load))
        site_s = timed(site_args, args.runs)
        history_s = timed(history_args, args.runs)
        t = time.perf_counter()
        history = History.open(root, now=now, days=HISTORY_DAYS)
        open_s = time.perf_counter() - t
        t = time.perf_counter()
        collect(history, Layers(JudgeState(), ()), ttft_threshold_s=10.0, stale_after_minutes=90)
        collect_s = time.perf_counter() - t
        t = time.perf_counter()
        build_site(tmp / "site2", History.open(root, now=now, days=HISTORY_DAYS), Layers(JudgeState(), ()),
                   parse_config({}), stale_after_minutes=90)   # no models, ttft 10 s: the defaults
        whole_s = time.perf_counter() - t
        sizes = {p.relative_to(out).as_posix(): p.stat().st_size for p in sorted(out.rglob("*")) if p.is_file()}
        cases = history.db.execute("SELECT COUNT(*) FROM cases").fetchone()[0]
        print(f"history: {cases} detail cases, {len(list(root.rglob('*.xz')))} files, load average {load:.1f}")
        print(f"  canary site --out     {site_s:6.2f} s (median of {args.runs}, process start-up included)")
        print(f"  canary history        {history_s:6.2f} s (30 days)")
        print(f"  in-process: History.open(365 d) {open_s:.2f} s, collect {collect_s:.2f} s, "
              f"whole build {whole_s:.2f} s")
        for name in ("index.html", "status.json", "decisions.atom", "assets/echarts.min.js"):
            print(f"  {name:22s} {sizes.get(name, 0) / 1024:8.1f} KiB")
        print(bench_line("site_build", site_s=site_s, history_s=history_s, open_s=open_s, collect_s=collect_s,
                         index_kib=sizes.get("index.html", 0) / 1024, load=load))
        if args.keep:
            print(f"kept: {tmp}")
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
