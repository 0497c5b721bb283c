"""Repository growth of the round history: a simulated year, committed round by round into git.

64 endpoints x 4 contracts, 48 rounds a day, 365 days (17,520 rounds), each round recorded by the
real code (canary.history: round_record -> record_round, compaction included) into a working
folder laid out as on the state branch (`state/history/`), and each round committed as its own
commit. The commits go through `git fast-import` (the same blobs, trees and commits `git add` +
`git commit` would make, in a fraction of the time); the first day is also committed with the
porcelain commands, and the two trees must be identical (checked). After each checkpoint the
repository is `git gc`-ed and its packed size read: that is what a clone downloads and what the
state branch costs. Only the history is measured (the state file and the audit log are not).

    .venv/bin/python benchmarks/history_size.py                 # the whole year (~10 min on 2 cores)
    .venv/bin/python benchmarks/history_size.py --days 40       # shorter
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _history_rounds import HALF_HOUR, START, fleet, results
from _support import bench_line

from canary.history.rows import round_record
from canary.history.store import record_round
from core.results_read import read_results

PREFIX = "state/history"
BRANCH = "refs/heads/canary-state"
CHECKPOINTS = (1, 7, 30, 36, 90, 180, 365)


def git(repo: Path, *args: str, data: bytes | None = None) -> str:
    out = subprocess.run(["git", "-C", str(repo), *args], input=data, capture_output=True, check=True)
    return out.stdout.decode().strip()


def listing(root: Path) -> dict[str, float]:
    out = {}
    for base, _, files in os.walk(root):
        for name in files:
            path = Path(base) / name
            out[str(path.relative_to(root))] = path.stat().st_mtime_ns
    return out


def commit_stream(n: int, when: int, changes: list[tuple[str, str]], work: Path, first: bool) -> bytes:
    msg = f"canary: round {n}\n".encode()
    parts = [f"commit {BRANCH}\n".encode(), f"committer canary <canary@localhost> {when} +0000\n".encode(),
             f"data {len(msg)}\n".encode(), msg]
    if first:
        parts.append(f"from {BRANCH}^0\n".encode())
    for op, rel in changes:
        if op == "D":
            parts.append(f"D {PREFIX}/{rel}\n".encode())
        else:
            blob = (work / rel).read_bytes()
            parts += [f"M 100644 inline {PREFIX}/{rel}\n".encode(), f"data {len(blob)}\n".encode(), blob, b"\n"]
    return b"".join(parts)


def packed_kib(repo: Path) -> int:
    git(repo, "gc", "-q")
    stats = dict(line.split(": ") for line in git(repo, "count-objects", "-v").splitlines())
    return int(stats["size-pack"]) + int(stats["size"])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--days", type=int, default=365)
    ap.add_argument("--endpoints", type=int, default=64)
    ap.add_argument("--keep", type=Path, default=None, help="keep the repository here")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="canary-history-size-"))
    repo, work, check = tmp / "repo", tmp / "repo-work", tmp / "porcelain"
    for r in (repo, check):
        git(tmp, "init", "-q", str(r))
    seed_msg = b"empty state branch\n"
    git(repo, "fast-import", "--quiet", data=b"commit " + BRANCH.encode() + b"\ncommitter canary <canary@localhost> "
        + str(int(START.timestamp())).encode() + b" +0000\ndata " + str(len(seed_msg)).encode() + b"\n" + seed_msg)
    hosts, rng = fleet(args.endpoints), random.Random(11)
    rounds_per_day = 48
    checkpoints = sorted({d for d in CHECKPOINTS if d <= args.days} | {args.days})
    rows, start = [], time.perf_counter()
    blob_bytes, n, prev_kib = 0, 0, packed_kib(repo)
    base_kib = prev_kib
    for day_end in checkpoints:
        stream = []
        while n < day_end * rounds_per_day:
            at = START + n * HALF_HOUR
            record = round_record(read_results(results(hosts, n, rng, at=at)))
            before = listing(work) if work.exists() else {}
            done = record_round(work, record, now=at)
            after = listing(work)
            changes = [("M", p) for p in sorted(after) if before.get(p) != after[p]]
            changes += [("D", p) for p in sorted(set(before) - set(after))]
            blob_bytes += sum((work / p).stat().st_size for op, p in changes if op == "M")
            stream.append(commit_stream(n, int(at.timestamp()), changes, work, first=not stream))
            if n < rounds_per_day and args.days >= 1:  # the porcelain cross-check on day 1
                dest = check / PREFIX
                shutil.rmtree(dest, ignore_errors=True)
                shutil.copytree(work, dest)
                git(check, "add", "-A")
                git(check, "-c", "user.name=canary", "-c", "user.email=canary@localhost",
                    "commit", "-q", "-m", f"round {n}")
            n += 1
            del done
        git(repo, "fast-import", "--quiet", data=b"".join(stream))
        if day_end == checkpoints[0]:
            same = git(repo, "rev-parse", f"{BRANCH}:{PREFIX}") == git(check, "rev-parse", f"HEAD:{PREFIX}")
            print(f"porcelain cross-check after day 1: trees {'identical' if same else 'DIFFER'}")
            if not same:
                return 1
        kib = packed_kib(repo)
        tree_kib = sum(f.stat().st_size for f in work.rglob("*") if f.is_file()) // 1024
        files = sum(1 for f in work.rglob("*") if f.is_file())
        rows.append((day_end, n, kib - base_kib, blob_bytes // 1024, tree_kib, files, time.perf_counter() - start))
        print(f"day {day_end:>3}: {n:>6} rounds  repository +{(kib - base_kib) / 1024:7.2f} MiB (git gc)  "
              f"blobs written {blob_bytes / 2**20:7.2f} MiB  checkout {tree_kib / 1024:6.2f} MiB in {files} files  "
              f"[{time.perf_counter() - start:5.0f} s]", flush=True)
    last_day, rounds, growth_kib = rows[-1][0], rows[-1][1], rows[-1][2]
    per_day = growth_kib / last_day
    year_mib = per_day * 365 / 1024
    how = "measured" if last_day >= 365 else f"extrapolated from {last_day} days"
    print(f"\nper day {per_day:.0f} KiB, per month (30 d) {per_day * 30 / 1024:.2f} MiB, "
          f"per year {year_mib:.1f} MiB ({how})"
          f"; per round {growth_kib * 1024 / rounds:.0f} bytes")
    print(bench_line("history_size", days=last_day, rounds=rounds, endpoints=args.endpoints,
                     repo_mib=growth_kib / 1024, per_day_kib=per_day, per_month_mib=per_day * 30 / 1024,
                     per_year_mib=year_mib, checkout_mib=rows[-1][4] / 1024, files=rows[-1][5],
                     wall_s=time.perf_counter() - start))
    if args.keep:
        shutil.copytree(repo, args.keep, dirs_exist_ok=True)
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
