"""How often one `canary round` process reads the round's files, and what its own share of the round costs.

    .venv/bin/python benchmarks/round_reads.py [--rounds 5] [--endpoints 12]

Runs `canary round` (canary.round.local_round.run_round, in this process) on the bundled
simulator with a made-up model of N healthy endpoints, --rounds times on one simulator state,
and prints per round: the reads of results.json, decisions.json and the state file by this
process (the probes' own pytest process is another), the round's wall time, and the part of it
spent outside the probes' subprocess (reading, judging, the summary): the median of the rounds.
Uses only run_round and RoundOptions, so the same script measures an older checkout.
Prints a `BENCH round_reads ...` line.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

from canary.round.local_round import RoundOptions, run_round

MODEL = "acme/bench-model"


def endpoint(tag: str) -> dict[str, Any]:
    return {"tag": tag, "provider_name": tag.split("/")[0].capitalize(),
            "pricing": {"prompt": "0.0000003", "completion": "0.000001"},
            "supported_parameters": ["max_tokens", "temperature", "seed", "response_format", "structured_outputs"],
            "behaviour": {"ttft_ms": 20, "tokens_per_second": 800, "faults": {}}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--endpoints", type=int, default=12)
    args = parser.parse_args()
    for name in ("OPENROUTER_API_KEY", "OPENROUTER_BASE_URL", "GITHUB_STEP_SUMMARY"):
        os.environ.pop(name, None)
    reads: Counter[str] = Counter()
    read_text, call = Path.read_text, subprocess.call
    probing = [0.0]

    def counting(self: Path, *a: Any, **kw: Any) -> str:
        reads[self.name] += 1
        return read_text(self, *a, **kw)

    def timed(*a: Any, **kw: Any) -> int:
        start = time.perf_counter()
        try:
            return call(*a, **kw)
        finally:
            probing[0] += time.perf_counter() - start

    Path.read_text = counting  # type: ignore[method-assign]
    subprocess.call = timed
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        scenario, config = root / "scenario.yaml", root / "canary.yaml"
        scenario.write_text(yaml.safe_dump({"name": "bench", "keepalive_ms": 50, "models": [{
            "id": MODEL, "name": "Bench", "permaslug": MODEL,
            "endpoints": [endpoint(f"host{i}/fp8") for i in range(args.endpoints)]}]}), encoding="utf-8")
        config.write_text(yaml.safe_dump({
            "mode": "observe", "models": [MODEL], "contracts": ["latency", "structured"],
            "probe": {"ttft_seconds": 2.0, "request_deadline_seconds": 5, "max_tokens": 200},
            "paths": {"reports": str(root / "reports"), "state": str(root / "real" / "state.json"),
                      "audit": str(root / "real" / "audit.jsonl")}}), encoding="utf-8")
        rows = []
        for _ in range(args.rounds):
            reads.clear()
            probing[0] = 0.0
            start = time.perf_counter()
            code = run_round(RoundOptions(config_path=str(config), scenario=str(scenario), render_report=False),
                             echo=lambda _: None)
            total = time.perf_counter() - start
            rows.append((code, reads["results.json"], reads["decisions.json"], reads["state.json"], total,
                         total - probing[0]))
    print("round  exit  results.json  decisions.json  state  wall_s  outside_probes_s")
    for n, (code, res, dec, state, total, outside) in enumerate(rows, 1):
        print(f"{n:5d}  {code:4d}  {res:12d}  {dec:14d}  {state:5d}  {total:6.2f}  {outside:16.3f}")
    wall = statistics.median(r[4] for r in rows)
    outside = statistics.median(r[5] for r in rows)
    print(f"BENCH round_reads rounds={args.rounds} endpoints={args.endpoints} results_reads={rows[-1][1]} "
          f"decisions_reads={rows[-1][2]} state_reads={rows[-1][3]} wall_s_median={wall:.2f} "
          f"outside_probes_s_median={outside:.3f}")


if __name__ == "__main__":
    main()
