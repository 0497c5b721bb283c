"""Round scaling: a real round's wall time against its longest request, and its peak memory.

    .venv/bin/python benchmarks/round_scaling.py [--endpoints 64 256 1024] [--repeat 3]

For each size it generates a scenario of healthy endpoints at realistic speeds (first token
uniform 0.3-3 s, 20-80 tokens per second, fixed seed) and runs one real round exactly as the
workflow does: `canary probe --scenario F --reports DIR` (which starts the simulator as its own
subprocess and then `pytest probes`, one process), with the repository's canary.yaml (its
concurrency caps). With --repeat N the sizes run N times, interleaved, so the spread shows.

Measured:
- wall_s: from launching `canary probe` to its exit (results.json written): Python and pytest
  start-up, the simulator's, discovery, the language detector's build and the Allure files included;
- longest_s: the longest single request of the round (max over attempts of total_s), the
  physical floor of a round; ratio = wall_s / longest_s. Both stretch with the machine's load,
  so the ratio within one run is the figure to compare (load: the 1-minute load average after it);
- peak_pss_mb: peak of Σ Pss over every process of the round's tree (canary probe, pytest, the
  language-judge process), sampled every 100 ms from /proc/<pid>/smaps_rollup; the simulator's
  subtree is kept apart (sim_pss_mb): it is the upstream, not the round;
- per provider: requests and completion tokens (min / median / max over providers).

Targets (issue 38): ratio <= 1.5 at 64 endpoints and <= 2.5 at 256; peak < 1 GB at any size.
Machine-parsable lines:

    BENCH round_scaling endpoints=64 wall_s=… longest_s=… ratio=… peak_pss_mb=… sim_pss_mb=… load=… …
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _support import (
    PYTHON,
    ROOT,
    PssSampler,
    bench_line,
    longest_request_s,
    realistic_fleet,
    scenario,
    usage_per_provider,
    write_yaml,
)

RATIO_TARGETS = {64: 1.5, 256: 2.5}
PEAK_TARGET_MB = 1024.0
CONTROL = "ember/fp8"  # the round's positive control, as a real round has one: every refusal verdict waits for it


def fleet(count: int) -> list[dict[str, object]]:
    """`count` realistic endpoints; the first is the scenario's positive control (ember/fp8, filters)."""
    hosts = realistic_fleet(count)
    hosts[0] = {**hosts[0], "tag": CONTROL, "provider_name": "Ember", "positive_control": True,
                "behaviour": {**hosts[0]["behaviour"], "faults": {"refusal": {"rate": 1.0}}}}
    return hosts


def one_round(tmp: Path, endpoints: int, config: str | None, run: int) -> dict[str, object]:
    name = f"scale-{endpoints}-{run}"
    scenario_file = write_yaml(tmp / f"{name}.yaml", scenario(name, fleet(endpoints), keepalive_ms=300))
    reports = tmp / name
    cmd = [PYTHON, "-m", "canary", *(["--config", config] if config else []),
           "probe", "--scenario", str(scenario_file), "--reports", str(reports),
           "--", f"--canary-state={tmp / 'no-state.json'}"]
    env = {k: v for k, v in os.environ.items() if k not in ("OPENROUTER_API_KEY", "CANARY_CONFIG")}
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    with PssSampler(proc.pid) as mem:
        output, _ = proc.communicate()
    wall = time.monotonic() - start
    try:
        results = json.loads((reports / "results.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise SystemExit(f"{name}: no results.json (exit {proc.returncode})\n{output[-3000:]}") from None
    if not results.get("complete"):
        raise SystemExit(f"{name}: incomplete round: {results.get('incomplete_reason')}")
    usage = usage_per_provider(results)
    outcomes: dict[str, int] = {}
    for case in results["cases"]:
        outcomes[case["outcome"]] = outcomes.get(case["outcome"], 0) + 1
    longest = longest_request_s(results)
    requests = sorted(u["requests"] for u in usage.values())
    tokens = sorted(u["completion_tokens"] for u in usage.values())
    return {
        "endpoints": endpoints, "wall_s": wall, "longest_s": longest,
        "ratio": wall / longest if longest else float("inf"),
        "peak_pss_mb": mem.peak_round_kb / 1024, "sim_pss_mb": mem.peak_sim_kb / 1024,
        "processes": mem.peak_processes, "load": os.getloadavg()[0],
        "req_min": int(requests[0]), "req_med": statistics.median(requests), "req_max": int(requests[-1]),
        "tok_min": int(tokens[0]), "tok_med": statistics.median(tokens), "tok_max": int(tokens[-1]),
        "outcomes": ",".join(f"{k}:{v}" for k, v in sorted(outcomes.items())),
    }


def verdicts(rows: list[dict[str, object]]) -> list[str]:
    out = []
    for size, target in RATIO_TARGETS.items():
        ratios = sorted(float(r["ratio"]) for r in rows if r["endpoints"] == size)  # type: ignore[arg-type]
        if ratios:
            median = statistics.median(ratios)
            out.append(f"{size} endpoints: ratio median {median:.2f} (min {ratios[0]:.2f}, max {ratios[-1]:.2f}, "
                       f"{len(ratios)} runs; target <= {target:g}): {'met' if median <= target else 'MISSED'}")
    peak = max(float(r["peak_pss_mb"]) for r in rows)  # type: ignore[arg-type]
    out.append(f"peak PSS over all runs: {peak:.0f} MB (target < {PEAK_TARGET_MB:g} MB): "
               f"{'met' if peak < PEAK_TARGET_MB else 'MISSED'}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--endpoints", type=int, nargs="+", default=[64, 256, 1024])
    parser.add_argument("--repeat", type=int, default=1, help="run every size this many times, interleaved")
    parser.add_argument("--config", default=None, help="canary.yaml to use (default: the repository's)")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="canary-scale-") as tmp:
        for run in range(args.repeat):
            for n in args.endpoints:
                print(f"... {n} endpoints (run {run + 1} of {args.repeat})", flush=True)
                rows.append(one_round(Path(tmp), n, args.config, run))
    header = (f"{'endpoints':>9} {'wall s':>7} {'longest s':>9} {'ratio':>6} {'peak PSS MB':>11} {'sim MB':>7} "
              f"{'procs':>5} {'load':>5}  {'req/provider':>14}  {'completion tok/provider':>24}  outcomes")
    print()
    print(header)
    print("-" * len(header))
    for r in rows:
        print(f"{r['endpoints']:>9} {r['wall_s']:>7.1f} {r['longest_s']:>9.2f} {r['ratio']:>6.2f} "
              f"{r['peak_pss_mb']:>11.0f} {r['sim_pss_mb']:>7.0f} {r['processes']:>5} {r['load']:>5.1f}  "
              f"{r['req_min']:>3}/{r['req_med']:>4}/{r['req_max']:>3}    "
              f"{r['tok_min']:>6}/{r['tok_med']:>6}/{r['tok_max']:>6}      {r['outcomes']}")
    print("(per provider: min/median/max)")
    print()
    for line in verdicts(rows):
        print(line)
    print()
    for r in rows:
        print(bench_line("round_scaling", **{k: r[k] for k in (
            "endpoints", "wall_s", "longest_s", "ratio", "peak_pss_mb", "sim_pss_mb", "processes", "load",
            "req_max", "tok_med")}))


if __name__ == "__main__":
    main()
