"""What each of issue 31's hostile numbers and sizes costs a round: time, memory, report size.

    .venv/bin/python benchmarks/hostile_bounds.py [--only NAME] [--calls 1200000] [--bomb-kb 32768]
                                                   [--checkout DIR]

`--checkout DIR` runs the round's probes from another checkout of the project (the simulator stays
this one's, which serves the attacks): `git archive <commit> | tar -x -C DIR` gives the figures
before a fix.

One real round per attack (`pytest probes` in a subprocess against `python -m simulator`, the tools
contract on): a healthy host (`aurora/fp8`) beside one attacker (`hostile/fp8`) serving the attack
on every request (simulator/hostile.py), plus a `baseline` round with two healthy hosts. For each:
the round's wall time, the probe process tree's peak PSS, the size of what the round wrote
(reports/: results.json, junit.xml, allure-results/), the healthy host's slowest first token (an
attack that held the probes' event loop shows here), and the attacker's outcomes (`none`: not
probed, as a listing entry dropped by discovery).

- `gzip-bomb`: the stream sent `Content-Encoding: gzip`, `--bomb-kb` KiB of keep-alives decoded
  (32 MiB from ~32 KB on the wire by default: the issue's bomb);
- `huge-bill-1e308` / `huge-bill-400-digits`: `usage.cost` of 1e308 / a 400-digit integer;
- `huge-listing`: the attacker's listing entry has a 401-digit `context_length` (dropped, reported);
- `tool-flood-names`: a call's name in 240,000 one-letter fragments (the issue's 331 MB Allure report);
- `tool-flood-calls`: `--calls` calls with empty arguments (the issue's 1.2 M: 744 MB for one request).

The last lines are machine-parsable:

    BENCH hostile_bounds attack=<name> wall_s=… peak_mb=… reports_kb=… healthy_ttft_s=… outcomes=… complete=… crashed=…
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _support import (  # noqa: E402
    ALL_PARAMS,
    ROOT,
    PssSampler,
    bench_line,
    canary_config,
    endpoint,
    probe_command,
    round_env,
    scenario,
    write_yaml,
)

from simulator.process import simulator_process  # noqa: E402

HEALTHY, ATTACKER = "aurora/fp8", "hostile/fp8"
PARAMS = [*ALL_PARAMS, "tools"]
ROUND_TIMEOUT_S = 900


def attacks(calls: int, bomb_kb: int) -> dict[str, dict[str, Any] | None]:
    """attack name -> the attacker's endpoint fields (None: the baseline, a second healthy host)."""
    return {
        "baseline": None,
        "gzip-bomb": {"faults": {"compressed_stream": {"rate": 1.0, "decoded_kb": bomb_kb}}},
        "huge-bill-1e308": {"faults": {"huge_bill": {"rate": 1.0, "cost": "1e308"}}},
        "huge-bill-400-digits": {"faults": {"huge_bill": {"rate": 1.0, "cost": "integer", "digits": 400}}},
        "huge-listing": {"context_length": 10**400},
        "tool-flood-names": {"faults": {"tool_flood": {"rate": 1.0, "name_fragments": 240_000}}},
        "tool-flood-calls": {"faults": {"tool_flood": {"rate": 1.0, "name_fragments": 0, "calls": calls}}},
    }


def attacker(fields: dict[str, Any] | None) -> dict[str, Any]:
    if fields is None:
        return endpoint("borealis/bf16", params=PARAMS)
    out = endpoint(ATTACKER, params=PARAMS, faults=fields.get("faults"))
    out.update({k: v for k, v in fields.items() if k != "faults"})
    return out


def with_allure(cmd: list[str]) -> list[str]:
    """`probe_command` with the Allure results written (reports/allure-results): their size is measured here."""
    at = cmd.index("no:allure_pytest")
    return cmd[: at - 1] + cmd[at + 1:]


def size_kb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1024


def run(name: str, fields: dict[str, Any] | None, tmp: Path, checkout: Path = ROOT) -> dict[str, Any]:
    folder = tmp / name
    scenario_file = write_yaml(folder / "scenario.yaml", scenario(
        f"hostile-bounds-{name}", [endpoint(HEALTHY, params=PARAMS), attacker(fields)]))
    config = canary_config(folder / "canary.yaml", optional_contracts=("tools",),
                           probe={"request_deadline_seconds": 30})
    reports = folder / "reports"
    with simulator_process(scenario_file) as sim:
        start = time.monotonic()
        proc = subprocess.Popen(with_allure(probe_command(config, reports)), cwd=checkout, env=round_env(sim.base_url),
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        with PssSampler(proc.pid) as mem:
            try:
                output, _ = proc.communicate(timeout=ROUND_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                output = proc.communicate()[0] + f"\n(killed after {ROUND_TIMEOUT_S} s)"

        wall = time.monotonic() - start
    try:
        results = json.loads((reports / "results.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise SystemExit(f"{name}: no results.json (exit {proc.returncode})\n{output[-3000:]}") from None
    healthy = [c for c in results["cases"] if c["provider"] == HEALTHY]
    other = fields is not None and ATTACKER or "borealis/bf16"
    outcomes = sorted(f"{c['contract']}:{c['outcome']}" for c in results["cases"] if c["provider"] == other)
    return {"attack": name, "wall_s": wall, "peak_mb": mem.peak_round_kb / 1024, "reports_kb": size_kb(reports),
            "healthy_ttft_s": max((c["ttft_s"] or 0.0 for c in healthy), default=0.0),
            "healthy": ",".join(sorted({c["outcome"] for c in healthy})),
            "outcomes": ",".join(outcomes) or "none", "complete": results["complete"],
            "crashed": "INTERNALERROR" in output or "Traceback" in output}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="run the attacks whose name contains this")
    parser.add_argument("--calls", type=int, default=1_200_000, help="tool-flood-calls' empty calls")
    parser.add_argument("--bomb-kb", type=int, default=32 * 1024, help="gzip-bomb's decoded KiB of keep-alives")
    parser.add_argument("--checkout", type=Path, default=ROOT, help="run the probes from this checkout")
    args = parser.parse_args()
    chosen = {n: f for n, f in attacks(args.calls, args.bomb_kb).items() if not args.only or args.only in n}
    rows = []
    with tempfile.TemporaryDirectory(prefix="hostile-bounds-") as tmp:
        for name, fields in chosen.items():
            row = run(name, fields, Path(tmp), args.checkout.resolve())
            rows.append(row)
            print(f"{name:22} {row['wall_s']:6.1f} s  peak {row['peak_mb']:7.1f} MB  "
                  f"reports {row['reports_kb']:8.1f} KB  healthy first token {row['healthy_ttft_s']:5.2f} s "
                  f"({row['healthy']})  attacker: {row['outcomes']}{'  CRASHED' if row['crashed'] else ''}", flush=True)
    for row in rows:
        print(bench_line("hostile_bounds", **{k: v for k, v in row.items() if k != "healthy"}))


if __name__ == "__main__":
    main()
