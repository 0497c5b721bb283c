"""Round scaling: wall time, longest request, peak memory of a real round at 8, 64 and 256 endpoints.

    .venv/bin/python benchmarks/round_scaling.py [--endpoints 8 64 256] [--workers-at-64 2 4]

For each size it generates a scenario of healthy endpoints at realistic speeds (first token
uniform 0.3-3 s, 20-80 tokens per second, fixed seed) and runs one real round exactly as the
workflow does: `canary probe --scenario F --reports DIR` (which starts the simulator as its own
subprocess and then `pytest probes`), with the repository's canary.yaml (its concurrency caps).

Measured:
- wall_s: from launching `canary probe` to its exit (results.json written): Python and pytest
  start-up, discovery, the language detector's build and the Allure files included;
- longest_s: the longest single request of the round (max over attempts of total_s), the
  physical floor of a round; ratio = wall_s / longest_s (target at 64 endpoints: <= 2);
- peak_pss_mb: peak of Σ Pss over every process of the round's tree (canary probe, pytest,
  xdist workers, the language-judge process), sampled every 100 ms from /proc/<pid>/smaps_rollup;
  the simulator's subtree is kept apart (sim_pss_mb): it is the upstream, not the round;
- per provider: requests and completion tokens (min / median / max over providers).

Targets: ratio <= 2 at 64 endpoints, 256 endpoints under 60 s, peak < 1 GB at any size and
any worker count. Machine-parsable lines:

    BENCH round_scaling endpoints=64 workers=0 wall_s=… longest_s=… ratio=… peak_pss_mb=… sim_pss_mb=… …
"""

from __future__ import annotations

import argparse
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

WALL_TARGET_256_S = 60.0
RATIO_TARGET_64 = 2.0
PEAK_TARGET_MB = 1024.0
CONTROL = "ember/fp8"  # canary.yaml's positive control: without it every refusal pass is "unverified"


def fleet(count: int) -> list[dict[str, object]]:
    """`count` realistic endpoints; the first is canary.yaml's positive control (ember/fp8, filters)."""
    hosts = realistic_fleet(count)
    hosts[0] = {**hosts[0], "tag": CONTROL, "provider_name": "Ember",
                "behaviour": {**hosts[0]["behaviour"], "faults": {"refusal": {"rate": 1.0}}}}
    return hosts


def one_round(tmp: Path, endpoints: int, workers: int, config: str | None) -> dict[str, object]:
    name = f"scale-{endpoints}-w{workers}"
    scenario_file = write_yaml(tmp / f"{name}.yaml", scenario(name, fleet(endpoints), keepalive_ms=300))
    reports = tmp / name
    cmd = [PYTHON, "-m", "canary", *(["--config", config] if config else []),
           "probe", "--scenario", str(scenario_file), "--reports", str(reports),
           "--", f"--canary-state={tmp / 'no-state.json'}"]
    if workers:
        cmd[cmd.index("probe") + 1:cmd.index("probe") + 1] = ["--workers", str(workers)]
    env = {k: v for k, v in __import__("os").environ.items() if k not in ("OPENROUTER_API_KEY", "CANARY_CONFIG")}
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    with PssSampler(proc.pid) as mem:
        output, _ = proc.communicate()
    wall = time.monotonic() - start
    import json
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
        "endpoints": endpoints, "workers": workers, "wall_s": wall, "longest_s": longest,
        "ratio": wall / longest if longest else float("inf"),
        "peak_pss_mb": mem.peak_round_kb / 1024, "sim_pss_mb": mem.peak_sim_kb / 1024,
        "processes": mem.peak_processes,
        "req_min": int(requests[0]), "req_med": statistics.median(requests), "req_max": int(requests[-1]),
        "tok_min": int(tokens[0]), "tok_med": statistics.median(tokens), "tok_max": int(tokens[-1]),
        "outcomes": ",".join(f"{k}:{v}" for k, v in sorted(outcomes.items())),
    }


def verdicts(rows: list[dict[str, object]]) -> list[str]:
    out = []
    for r in rows:
        if r["endpoints"] == 64 and r["workers"] == 0:
            out.append(f"64 endpoints: ratio {r['ratio']:.2f} (target <= {RATIO_TARGET_64:g}): "
                       f"{'met' if float(r['ratio']) <= RATIO_TARGET_64 else 'MISSED'}")  # type: ignore[arg-type]
        if r["endpoints"] == 256:
            out.append(f"256 endpoints (workers {r['workers']}): {r['wall_s']:.1f} s "
                       f"(target < {WALL_TARGET_256_S:g} s): "
                       f"{'met' if float(r['wall_s']) < WALL_TARGET_256_S else 'MISSED'}")  # type: ignore[arg-type]
    peak = max(float(r["peak_pss_mb"]) for r in rows)  # type: ignore[arg-type]
    out.append(f"peak PSS over all runs: {peak:.0f} MB (target < {PEAK_TARGET_MB:g} MB): "
               f"{'met' if peak < PEAK_TARGET_MB else 'MISSED'}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--endpoints", type=int, nargs="+", default=[8, 64, 256])
    parser.add_argument("--workers-at-64", type=int, nargs="*", default=[2, 4])
    parser.add_argument("--config", default=None, help="canary.yaml to use (default: the repository's)")
    args = parser.parse_args()
    runs = [(n, 0) for n in args.endpoints] + [(64, w) for w in args.workers_at_64]
    rows = []
    with tempfile.TemporaryDirectory(prefix="canary-scale-") as tmp:
        for n, w in runs:
            print(f"... {n} endpoints, workers {w}", flush=True)
            rows.append(one_round(Path(tmp), n, w, args.config))
    header = (f"{'endpoints':>9} {'workers':>7} {'wall s':>7} {'longest s':>9} {'ratio':>6} {'peak PSS MB':>11} "
              f"{'sim MB':>7} {'procs':>5}  {'req/provider':>14}  {'completion tok/provider':>24}  outcomes")
    print()
    print(header)
    print("-" * len(header))
    for r in rows:
        print(f"{r['endpoints']:>9} {r['workers']:>7} {r['wall_s']:>7.1f} {r['longest_s']:>9.2f} {r['ratio']:>6.2f} "
              f"{r['peak_pss_mb']:>11.0f} {r['sim_pss_mb']:>7.0f} {r['processes']:>5}  "
              f"{r['req_min']:>3}/{r['req_med']:>4}/{r['req_max']:>3}    "
              f"{r['tok_min']:>6}/{r['tok_med']:>6}/{r['tok_max']:>6}      {r['outcomes']}")
    print("(per provider: min/median/max)")
    print()
    for line in verdicts(rows):
        print(line)
    print()
    for r in rows:
        print(bench_line("round_scaling", **{k: r[k] for k in (
            "endpoints", "workers", "wall_s", "longest_s", "ratio", "peak_pss_mb", "sim_pss_mb", "processes",
            "req_max", "tok_med")}))


if __name__ == "__main__":
    main()
