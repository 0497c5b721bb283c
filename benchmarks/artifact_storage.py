"""Actions storage: how big a round's artifacts are, and what the retention days cost.

    .venv/bin/python benchmarks/artifact_storage.py [--endpoints N]

Runs one real round as the workflow's probe job does (`canary probe --simulator`, the repository's
canary.yaml; the bundled default scenario, or N healthy endpoints of realistic speed), renders the
single-file Allure report as the report job does (`canary report --single-file`), and zips each
artifact the way upload-artifact does (deflate, its default compression level 6). Then it projects
the storage a private repository holds at 48 rounds a day, per model, for the old retention
(14 days for everything) and the workflow's (shards and decisions 1 day, report 2, Pages 1), next
to the Actions storage GitHub includes (Free 500 MB, Pro 1 GB, Team 2 GB: docs "Actions limits").
Machine-parsable last line:

    BENCH artifact_storage endpoints=… shard_kb=… report_kb=… old_mb=… new_mb=… new_mb_pages=…
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _support import PYTHON, ROOT, bench_line, realistic_fleet, scenario, write_yaml

ROUNDS_PER_DAY = 48
QUOTAS_MB = {"GitHub Free": 500, "Pro": 1000, "Team": 2000}
OLD_DAYS = {"shard": 14, "decisions": 14, "report": 14, "pages": 1}
NEW_DAYS = {"shard": 1, "decisions": 1, "report": 2, "pages": 1}


def zipped(*paths: Path) -> int:
    """Bytes of a deflate-6 zip of these files and folders (what an artifact stores)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        for path in paths:
            for file in sorted([path] if path.is_file() else path.rglob("*")):
                if file.is_file():
                    archive.write(file, file.relative_to(path.parent))
    return len(buffer.getvalue())


def run(cmd: list[str], env: dict[str, str]) -> None:
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False)
    if done.returncode not in (0, 1):  # 1: an incomplete round still leaves its files
        raise SystemExit(f"{' '.join(cmd[:4])} exited {done.returncode}\n{done.stdout[-2000:]}{done.stderr[-2000:]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--endpoints", type=int, default=0, help="N healthy endpoints instead of the default scenario")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENROUTER_API_KEY", "OPENROUTER_BASE_URL", "CANARY_CONFIG", "GITHUB_ACTIONS")}
    with tempfile.TemporaryDirectory(prefix="canary-storage-") as tmp:
        reports = Path(tmp) / "reports"
        probe = [PYTHON, "-m", "canary", "probe", "--simulator", "--reports", str(reports)]
        if args.endpoints:
            probe += ["--scenario", str(write_yaml(Path(tmp) / "fleet.yaml",
                                                   scenario("storage", realistic_fleet(args.endpoints))))]
        run(probe + ["--", f"--canary-state={Path(tmp) / 'no-state.json'}"], env)
        run([PYTHON, "-m", "canary", "report", "--results-dir", str(reports / "allure-results"),
             "--out", str(Path(tmp) / "allure-report"), "--single-file"], env)
        models = json.loads((reports / "results.json").read_text(encoding="utf-8"))["models"]
        endpoints = sum(len(m["providers"]) for m in models.values())
        shard = zipped(reports / "results.json", reports / "junit.xml", reports / "allure-results")
        report_raw = (Path(tmp) / "allure-report" / "index.html").stat().st_size
        report = zipped(Path(tmp) / "allure-report")
    decisions = 4_000  # a few KB: the round's decisions and provider.ignore lists
    size = {"shard": shard, "decisions": decisions, "report": report, "pages": report}
    per_day = {k: v * ROUNDS_PER_DAY for k, v in size.items()}
    mb = 1_000_000

    def held(days: dict[str, int], pages: bool) -> float:
        return sum(per_day[k] * days[k] for k in size if pages or k != "pages") / mb

    print(f"one round, one model, {endpoints} endpoint(s) x 4 contracts")
    print(f"  shard (results.json, junit.xml, allure-results/), zipped: {shard / 1000:8.1f} KB")
    print(f"  Allure single-file report: {report_raw / 1000:8.1f} KB raw, {report / 1000:8.1f} KB zipped")
    uploaded = per_day["shard"] + per_day["decisions"] + per_day["report"]
    print(f"per day at {ROUNDS_PER_DAY} rounds: {uploaded / mb:.1f} MB "
          f"uploaded, {per_day['pages'] / mb:.1f} MB more with Pages on")
    for name, days in (("old", OLD_DAYS), ("new", NEW_DAYS)):
        kept = ", ".join(f"{k} {d} d" for k, d in days.items())
        fits = ", ".join(f"{plan} {'fits' if held(days, False) <= quota else 'FULL'}"
                         for plan, quota in QUOTAS_MB.items())
        print(f"  {name} retention ({kept}): {held(days, False):7.1f} MB held, {held(days, True):7.1f} MB with Pages "
              f"(without Pages: {fits})")
    print(bench_line("artifact_storage", endpoints=endpoints, shard_kb=shard / 1000, report_kb=report / 1000,
                     old_mb=held(OLD_DAYS, False), new_mb=held(NEW_DAYS, False), new_mb_pages=held(NEW_DAYS, True)))


if __name__ == "__main__":
    main()
