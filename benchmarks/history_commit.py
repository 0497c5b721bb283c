"""What carrying the round history costs a round's `canary fetch-state` and `canary commit`.

    .venv/bin/python benchmarks/history_commit.py [--rounds-kept 1680] [--days 330] [--commits 5]

Builds a state branch whose history has the shape a year leaves (benchmarks/README.md, "Round
history": 35 days of round files of ~3.8 KB plus one day file of ~9.3 KB per older day; xz output
is incompressible, so random bytes of those sizes stand in for them) in a bare repository, then
times, through the real CLI as the judge job runs it in a shallow clone:

- `canary fetch-state` in a fresh shallow clone (a new runner: every file written), and again
  with nothing changed (a developer's clone: nothing written);
- `canary commit` of one round (the state file changed, one new round file), --commits times,
  with the objects and bytes each push added to the remote (git count-objects).

Machine-parsable last line (one line, wrapped here):

    BENCH history_commit files=… checkout_mib=… fetch_fresh_s=… fetch_again_s=… commit_s=…
        objects_per_commit=… kib_per_commit=…
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _support import PYTHON, ROOT, bench_line

ROUND_BYTES, DAY_BYTES = 3_800, 9_300


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"git {' '.join(args)}: {done.stderr}")
    return done.stdout


def canary(config: Path, cwd: Path, *args: str) -> float:
    """Run one canary command the way the workflow does; its wall time in seconds."""
    started = time.perf_counter()
    done = subprocess.run([PYTHON, "-m", "canary", "--config", str(config), *args], cwd=cwd, capture_output=True,
                          text=True, check=False, env={**os.environ, "PYTHONPATH": str(ROOT)})
    if done.returncode != 0:
        raise SystemExit(f"canary {args[0]}: exit {done.returncode}\n{done.stdout}{done.stderr}")
    return time.perf_counter() - started


def loose(remote: Path) -> tuple[int, int]:
    """(objects, KiB) stored loose in the remote: what the pushes since the last repack added."""
    fields = dict(line.split(": ") for line in git(remote, "count-objects", "-v").splitlines())
    return int(fields["count"]), int(fields["size"])


def write_history(root: Path, rounds: int, days: int) -> None:
    for i in range(rounds):  # 48 a day, in day folders, as canary/history/store.py lays them out
        day, slot = divmod(i, 48)
        if day < 31:
            path = root / "rounds" / "2026-12" / f"{day + 1:02d}"
        else:
            path = root / "rounds/2027-01" / f"{day - 30:02d}"
        path.mkdir(parents=True, exist_ok=True)
        (path / f"{slot // 2:02d}{slot % 2 * 30:02d}00Z-{i:012x}.xz").write_bytes(os.urandom(ROUND_BYTES))
    for d in range(days):
        folder = root / "days" / "2026"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"2026-{1 + d // 28:02d}-{1 + d % 28:02d}.xz").write_bytes(os.urandom(DAY_BYTES))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds-kept", type=int, default=35 * 48, help="round files in the checkout (35 days)")
    parser.add_argument("--days", type=int, default=330, help="day files (a year minus the 35 detailed days)")
    parser.add_argument("--commits", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="canary-bench-commit-") as tmp:
        base = Path(tmp)
        remote = base / "remote.git"
        git(base, "init", "--quiet", "--bare", "-b", "main", str(remote))
        seed = base / "seed"
        git(base, "clone", "--quiet", f"file://{remote}", "seed")
        ident = ["-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
        (seed / "README.md").write_text("main\n")
        git(seed, "add", ".")
        git(seed, *ident, "commit", "--quiet", "-m", "main")
        git(seed, "push", "--quiet", "origin", "HEAD:main")
        git(seed, "checkout", "--quiet", "--orphan", "canary-state")
        git(seed, "rm", "-r", "--cached", "--quiet", ".")
        (seed / "README.md").unlink()
        write_history(seed / "state" / "history", args.rounds_kept, args.days)
        (seed / "state" / "canary-state.json").write_text('{"schema_version": 1, "models": {}}\n')
        git(seed, "add", "state")
        git(seed, *ident, "commit", "--quiet", "-m", "a year of history")
        git(seed, "push", "--quiet", "origin", "canary-state")
        git(remote, "repack", "-a", "-d", "-q")
        files = int(git(remote, "ls-tree", "-r", "canary-state", "--", "state/history").count("\n"))
        size = sum(p.stat().st_size for p in (seed / "state" / "history").rglob("*") if p.is_file())

        clone = base / "runner"
        git(base, "clone", "--quiet", "--depth", "1", f"file://{remote}", "runner")
        config = base / "canary.yaml"
        config.write_text(f"paths:\n  state: {clone / 'state/canary-state.json'}\n"
                          f"  audit: {clone / 'state/audit.jsonl'}\n"
                          f"  reports: {clone / 'reports'}\n")
        fresh = canary(config, clone, "fetch-state", "--repo", str(clone))
        again = canary(config, clone, "fetch-state", "--repo", str(clone))
        timings, objects, kib = [], [], []
        for n in range(args.commits):
            before = loose(remote)
            (clone / "state" / "canary-state.json").write_text(f'{{"schema_version": 1, "models": {{}}, "n": {n}}}\n')
            folder = clone / "state/history/rounds/2027-01/05"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{n:02d}0000Z-{n:012x}.xz").write_bytes(os.urandom(ROUND_BYTES))
            timings.append(canary(config, clone, "commit", "--repo", str(clone), "--branch", "main",
                                  "--message", f"bench round {n}"))
            after = loose(remote)
            objects.append(after[0] - before[0])
            kib.append(after[1] - before[1])
        print(f"history checkout: {files} files, {size / 2**20:.2f} MiB")
        print(f"canary fetch-state, fresh shallow clone (every file written): {fresh:.2f} s")
        print(f"canary fetch-state, nothing changed:                          {again:.2f} s")
        print(f"canary commit of one round (median of {args.commits}):              {statistics.median(timings):.2f} s "
              f"({', '.join(f'{t:.2f}' for t in timings)})")
        print(f"objects per round commit: {objects} (KiB loose, before packing: {kib})")
        print(bench_line("history_commit", files=files, checkout_mib=round(size / 2**20, 2),
                         fetch_fresh_s=round(fresh, 2), fetch_again_s=round(again, 2),
                         commit_s=round(statistics.median(timings), 2),
                         objects_per_commit=statistics.median(objects), kib_per_commit=statistics.median(kib)))


if __name__ == "__main__":
    main()
