"""Cost: requests, tokens and dollars per provider per round, for the default configuration.

    .venv/bin/python benchmarks/cost.py

Runs one real round exactly as `canary probe` does with no key: the repository's canary.yaml
(default prompts, max_tokens, confirmations) against the bundled default scenario, whose nine
hosts carry that scenario's pricing (USD per token). The default scenario mixes healthy hosts
with faulty ones, so one round shows both shapes the issue asks about:
- a clean round of a provider (every contract answered once: 4 requests);
- a round with a language anomaly (cinder's stray bytes, dune's mixing): 2 confirmation
  attempts of the language prompt run, so 6 requests.

Dollars come from results.json (`cost_usd` = tokens x the endpoint's advertised pricing).
Month = 48 rounds a day x 30 days. Machine-parsable last lines:

    BENCH cost kind=clean requests=4 completion_tokens=… cost_usd_round=…
    BENCH cost kind=round providers=9 requests=… completion_tokens=… usd_round=… usd_month=…
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _support import PYTHON, ROOT, bench_line, usage_per_provider

ROUNDS_PER_MONTH = 48 * 30
AIM_REQUESTS = 4


def default_round(tmp: Path) -> dict[str, Any]:
    reports = tmp / "reports"
    env = {k: v for k, v in os.environ.items() if k not in ("OPENROUTER_API_KEY", "CANARY_CONFIG", "OPENROUTER_BASE_URL")}
    proc = subprocess.run([PYTHON, "-m", "canary", "probe", "--reports", str(reports), "--",
                           f"--canary-state={tmp / 'no-state.json'}"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    try:
        return dict(json.loads((reports / "results.json").read_text(encoding="utf-8")))
    except (OSError, ValueError):
        raise SystemExit(f"no results.json (exit {proc.returncode})\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}") from None


def kind_of(results: dict[str, Any], provider: str) -> str:
    cases = [c for c in results["cases"] if c["provider"] == provider]
    if any(c.get("anomaly") for c in cases):
        return "anomaly"
    if any(c["outcome"] == "transport_error" for c in cases):
        return "transport"
    if all(c["outcome"] in ("pass", "not_applicable") or c.get("control") for c in cases):
        return "clean"
    return "other"


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="canary-cost-") as tmp:
        results = default_round(Path(tmp))
    usage = usage_per_provider(results)
    print(f"one round of the default configuration against the default scenario ({len(usage)} providers)")
    print()
    print(f"{'provider':<15} {'kind':<10} {'requests':>8} {'prompt tok':>10} {'compl. tok':>10} {'USD/round':>11} "
          f"{'USD/month':>10}")
    kinds: dict[str, list[dict[str, float]]] = {}
    for provider, u in sorted(usage.items()):
        kind = kind_of(results, provider)
        kinds.setdefault(kind, []).append(u)
        print(f"{provider:<15} {kind:<10} {int(u['requests']):>8} {int(u['prompt_tokens']):>10} "
              f"{int(u['completion_tokens']):>10} {u['cost_usd']:>11.6f} {u['cost_usd'] * ROUNDS_PER_MONTH:>10.4f}")
    total = {k: sum(u[k] for u in usage.values()) for k in ("requests", "prompt_tokens", "completion_tokens", "cost_usd")}
    print(f"{'total':<15} {'':<10} {int(total['requests']):>8} {int(total['prompt_tokens']):>10} "
          f"{int(total['completion_tokens']):>10} {total['cost_usd']:>11.6f} {total['cost_usd'] * ROUNDS_PER_MONTH:>10.4f}")
    print()
    lines = []
    for kind in ("clean", "anomaly"):
        rows = kinds.get(kind, [])
        if not rows:
            continue
        req = statistics.median(r["requests"] for r in rows)
        tok = statistics.median(r["completion_tokens"] for r in rows)
        usd = statistics.median(r["cost_usd"] for r in rows)
        print(f"{kind} round of one provider (median of {len(rows)}): {req:g} requests, {tok:g} completion tokens, "
              f"${usd:.6f}/round, ${usd * ROUNDS_PER_MONTH:.4f}/month")
        lines.append(bench_line("cost", kind=kind, providers=len(rows), requests=req, completion_tokens=tok,
                                usd_round=usd, usd_month=usd * ROUNDS_PER_MONTH))
    clean = kinds.get("clean", [])
    if clean:
        worst = max(r["requests"] for r in clean)
        print(f"aim: <= {AIM_REQUESTS} requests per provider in a clean round: "
              f"{'met' if worst <= AIM_REQUESTS else 'MISSED'} (max {worst:g})")
    print(f"whole round: ${total['cost_usd']:.6f}; month ({ROUNDS_PER_MONTH} rounds): "
          f"${total['cost_usd'] * ROUNDS_PER_MONTH:.2f}")
    print()
    for line in lines:
        print(line)
    print(bench_line("cost", kind="round", providers=len(usage), requests=int(total["requests"]),
                     completion_tokens=int(total["completion_tokens"]), usd_round=total["cost_usd"],
                     usd_month=total["cost_usd"] * ROUNDS_PER_MONTH))


if __name__ == "__main__":
    main()
