"""How long `canary explain` takes over a year of history at 64 endpoints (issue 40 item 1).

    .venv/bin/python benchmarks/explain_year.py [--endpoints 64] [--runs 3] [--keep DIR]

Builds, with the real code, what the state branch holds after a year: the round history of 64
endpoints x 48 rounds a day (benchmarks/history_query.py `build`: the last 35 days as round files,
the rest compacted into day files), an audit log of a year of decisions (a few hosts suspended
and restored every few days, would-suspends, incidents: 1,500 lines), and one exporter's production
records, one per 30-minute window for the year (17,520 files, each endpoint's sampled replies and
now and then a user's report). Then times `canary explain` as a subprocess (the real command,
start-up included; median of --runs), text and --json, at a moment inside the detail window and
at one ten months back (a compacted day), and the function itself in-process. --keep DIR keeps
the year there and reuses it on the next run (building it takes half an hour on a loaded machine).

    BENCH explain_year endpoints=64 text_s=... json_s=... old_s=... inprocess_s=...
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
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _history_rounds import MODEL
from _support import PYTHON, ROOT, bench_line
from history_query import build

from canary.history.explain import explain
from canary.history.store import read_round
from canary.state import audit
from core.production import SCHEMA, ProductionRecord, ReportCell, ServedCell, record_json
from core.times import stamp
from judge.suspension.decisions import Action, Decision, Rule

WINDOW = timedelta(minutes=30)


def audit_year(path: Path, hosts: list[str], end: datetime, rng: random.Random) -> int:
    """A year of decisions: suspensions of a few hosts every couple of days, each ended by a restore."""
    lines = []
    at = end - timedelta(days=365)
    while at < end:
        host = rng.choice(hosts[:6])
        until = at + timedelta(days=rng.choice((1, 3, 7)))
        action = rng.choice((Action.SUSPEND, Action.WOULD_SUSPEND))
        lines += audit.decision_lines([Decision(MODEL, host, action, Rule.FAILED_STREAK, "2 failed rounds in a row",
                                                until=until, rung=1)], round_id=f"r-{stamp(at)}", mode="enforce",
                                      now=at)
        ended = at + timedelta(hours=rng.uniform(2, 20))
        lines += audit.decision_lines([Decision(MODEL, host, Action.RESTORE, Rule.CLEAN_STREAK, "2 clean rounds")],
                                      round_id=f"r-{stamp(ended)}", mode="enforce", now=ended)
        at += timedelta(hours=rng.uniform(6, 18))
    audit.append(path, lines)
    return len(lines)


def records_year(folder: Path, names: list[str], end: datetime, rng: random.Random) -> int:
    """One record per window for the year: every endpoint's sampled replies, a report now and then."""
    folder.mkdir(parents=True, exist_ok=True)
    start, n = end - timedelta(days=365), 0
    while start < end:
        record = ProductionRecord(
            schema=SCHEMA, exporter="chat-eu-1", window_start=start, window_end=start + WINDOW, sample_rate=0.05,
            served=tuple(ServedCell(model=MODEL, provider=name, n=rng.randint(10, 20)) for name in names),
            reports=tuple(ReportCell(model=MODEL, provider=rng.choice(names), n=1) for _ in range(rng.random() < 0.1)))
        (folder / f"{stamp(start).replace(':', '')}.json").write_bytes(record_json(record))
        start += WINDOW
        n += 1
    return n


def timed(args: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run([PYTHON, "-m", "canary", "explain", *args], cwd=ROOT, check=True, capture_output=True)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--endpoints", type=int, default=64)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--keep", type=Path, default=None, help="build the year here, or reuse the one built there")
    args = ap.parse_args()
    rng = random.Random(11)
    tmp = args.keep or Path(tempfile.mkdtemp(prefix="canary-explain-year-"))
    history = tmp / "state" / "history"
    try:
        t = time.perf_counter()
        built = (tmp / "built").is_file()
        end = (datetime.fromtimestamp(float((tmp / "built").read_text()), UTC) if built else
               datetime.fromtimestamp(build(history, 365, args.endpoints), UTC))
        tags = sorted({c.provider for c in read_round(max(history.glob("rounds/*/*/*.xz"))).cases})
        if not built:
            lines = audit_year(tmp / "state" / "audit.jsonl", tags, end, rng)
            files = records_year(tmp / "production" / "chat-eu-1", [f"Host{i:02d}" for i in range(len(tags))], end,
                                 rng)
            (tmp / "built").write_text(str(end.timestamp()))
            print(f"built in {time.perf_counter() - t:.0f} s: a year of history ({len(tags)} endpoints), {lines} "
                  f"audit lines, {files} production records")
        common = ["--model", MODEL, "--history", str(history), "--audit", str(tmp / "state" / "audit.jsonl"),
                  "--state", str(tmp / "state" / "canary-state.json"), "--builtin", str(tmp / "builtin.yaml"),
                  "--incidents", str(tmp / "incidents.yaml"), "--production", str(tmp / "production")]
        recent, old = end - timedelta(hours=7, minutes=10), end - timedelta(days=300, minutes=10)
        text_s = timed([*common, "--at", stamp(recent)], args.runs)
        json_s = timed([*common, "--at", stamp(recent), "--json"], args.runs)
        old_s = timed([*common, "--at", stamp(old)], args.runs)
        t = time.perf_counter()
        story = explain(MODEL, recent, history=history, audit_lines=audit.read(tmp / "state" / "audit.jsonl").lines,
                        exclusions=(), production=tmp / "production")
        inprocess_s = time.perf_counter() - t
        shown = sum(bool(e.before) for e in story.endpoints)
        print(f"canary explain over a year at {len(story.endpoints)} endpoints ({shown} with their rounds):")
        print(f"  text, a moment 7 h back   {text_s:6.2f} s (median of {args.runs}, process start-up included)")
        print(f"  --json, the same moment   {json_s:6.2f} s")
        print(f"  text, ten months back     {old_s:6.2f} s (a compacted day: its counts)")
        print(f"  in-process explain()      {inprocess_s:6.2f} s (the audit log read first)")
        print(bench_line("explain_year", endpoints=len(story.endpoints), text_s=round(text_s, 2),
                         json_s=round(json_s, 2), old_s=round(old_s, 2), inprocess_s=round(inprocess_s, 2)))
    finally:
        if args.keep is None:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
