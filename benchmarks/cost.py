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
Month = 48 rounds a day x 30 days.

Then reasoning hosts (issue 13 item 8): one round against a fleet of the same price ($0.40/M
prompt, $2.00/M completion tokens, a DeepSeek-R1-like price) holding plain hosts, reasoning hosts
that list no reasoning parameter (so they get the request the probes always sent: no controls,
max_tokens 200; this is "before"), and reasoning hosts that list `reasoning` (low effort, thinking
excluded, max_tokens + 1024: "after"), each thinking 600 or 3000 tokens when unbudgeted; then the
same fleet with `probe.reasoning_effort: null` (the 1024-token budget sent as reasoning.max_tokens).
The simulator's reasoning host follows OpenRouter's documented budget normalisation (low effort =
0.2 of max_tokens), so the thinking figures are that model's, not a real model's; the ceiling per
request (answer + 1024 tokens) is what bounds a real one. Machine-parsable last lines:

    BENCH cost kind=clean requests=4 completion_tokens=… cost_usd_round=…
    BENCH cost kind=round providers=9 requests=… completion_tokens=… usd_round=… usd_month=…
    BENCH cost kind=reasoning-<group> effort=… requests=… completion_tokens=… usd_round=… verdicts=…

Then the optional contracts (issue 23), each opted in for the default model against the default
scenario (its pricing): what the contract's cases add per round, per provider and in total
(a clean endpoint: one request; an anomaly: two confirmations more; an endpoint that does not
list the parameter: none):

    BENCH cost kind=optional-<contract> providers=… requests=… requests_max=… usd_round=… usd_month=…

Then the optional contracts (issue 23) all three at once: one round of four healthy hosts (the
default scenario's pricing, $0.27/M prompt, $1.10/M completion tokens, all listing `tools` and
`stop`) with `optional_contracts: [tools, stop, fidelity]`, and what each contract adds per
endpoint per round (one request each when clean; the fidelity prompt is the longer one, five
questions), then the three together and a clean endpoint's whole round with them:

    BENCH cost kind=optional-<contract> requests=… prompt_tokens=… completion_tokens=… usd_round=… usd_month=…
    BENCH cost kind=optional-all requests=… usd_round=… usd_month=… round_requests=… round_usd=…
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

from _support import (
    PYTHON,
    ROOT,
    Simulator,
    bench_line,
    canary_config,
    endpoint,
    run_probe,
    scenario,
    usage_per_provider,
    write_yaml,
)

ROUNDS_PER_MONTH = 48 * 30
AIM_REQUESTS = 4
# The usage figures summed per provider and per contract.
FIGURES = ("requests", "prompt_tokens", "completion_tokens", "cost_usd")
REASONING_PRICE = {"prompt_price": "0.00000040", "completion_price": "0.00000200"}
PLAIN_PARAMS = ("max_tokens", "temperature", "seed", "response_format", "structured_outputs")
REASONING_PARAMS = (*PLAIN_PARAMS, "reasoning", "include_reasoning")
# group -> (natural thinking tokens or 0, lists reasoning parameters)
FLEET = {"plain": (0, False), "before-600": (600, False), "after-600": (600, True),
         "before-3000": (3000, False), "after-3000": (3000, True)}


def default_round(tmp: Path) -> dict[str, Any]:
    reports = tmp / "reports"
    private = ("OPENROUTER_API_KEY", "CANARY_CONFIG", "OPENROUTER_BASE_URL")
    env = {k: v for k, v in os.environ.items() if k not in private}
    proc = subprocess.run([PYTHON, "-m", "canary", "probe", "--reports", str(reports), "--",
                           f"--canary-state={tmp / 'no-state.json'}"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    try:
        return dict(json.loads((reports / "results.json").read_text(encoding="utf-8")))
    except (OSError, ValueError):
        raise SystemExit(f"no results.json (exit {proc.returncode})\n"
                         f"{proc.stdout[-2000:]}{proc.stderr[-2000:]}") from None


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
    total = {k: sum(u[k] for u in usage.values()) for k in FIGURES}
    print(f"{'total':<15} {'':<10} {int(total['requests']):>8} {int(total['prompt_tokens']):>10} "
          f"{int(total['completion_tokens']):>10} {total['cost_usd']:>11.6f} "
          f"{total['cost_usd'] * ROUNDS_PER_MONTH:>10.4f}")
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


def reasoning_fleet() -> dict[str, Any]:
    hosts = []
    for group, (thinking, lists) in FLEET.items():
        for n in (1, 2):
            faults = {"thinking": {"tokens": thinking}} if thinking else None
            hosts.append(endpoint(f"{group}-{n}/fp8", ttft_ms=50, tokens_per_second=4000, faults=faults,
                                  params=REASONING_PARAMS if lists else PLAIN_PARAMS, **REASONING_PRICE))
    return scenario("reasoning-cost", hosts)


def reasoning_rounds(tmp: Path) -> list[str]:
    """One round per effort setting against the reasoning fleet; prints a table, returns BENCH lines."""
    scenario_file = write_yaml(tmp / "reasoning.yaml", reasoning_fleet())
    lines = []
    with Simulator(scenario_file, seed=11) as sim:
        for effort in ("low", None):
            config = canary_config(tmp / f"canary-{effort}.yaml", probe={"reasoning_effort": effort})
            done = run_probe(sim.base_url, config, tmp / f"reports-{effort}", state=tmp / "no-state.json")
            results = done.results
            usage = usage_per_provider(results)
            print()
            print(f"reasoning fleet, probe.reasoning_effort={effort or 'null'} (reasoning_max_tokens 1024), one round:")
            print(f"{'group':<13} {'requests':>8} {'compl. tok':>10} {'USD/round':>11} {'USD/month':>10}  verdicts")
            for group in FLEET:
                tags = [t for t in usage if t.startswith(f"{group}-")]
                req = sum(usage[t]["requests"] for t in tags) / len(tags)
                tok = sum(usage[t]["completion_tokens"] for t in tags) / len(tags)
                usd = sum(usage[t]["cost_usd"] for t in tags) / len(tags)
                outcomes: dict[str, int] = {}
                for c in results["cases"]:
                    if c["provider"] in tags:
                        outcomes[c["outcome"]] = outcomes.get(c["outcome"], 0) + 1
                verdicts = ",".join(f"{k}:{v}" for k, v in sorted(outcomes.items()))
                print(f"{group:<13} {req:>8g} {tok:>10g} {usd:>11.6f} {usd * ROUNDS_PER_MONTH:>10.4f}  {verdicts}")
                lines.append(bench_line("cost", kind=f"reasoning-{group}", effort=effort or "budget", requests=req,
                                        completion_tokens=tok, usd_round=usd, usd_month=usd * ROUNDS_PER_MONTH,
                                        verdicts=verdicts))
    ceiling = 4 * (200 + 1024) * float(REASONING_PRICE["completion_price"])
    print(f"ceiling of a clean round of one reasoning host (4 requests x (200 + 1024) completion tokens): "
          f"${ceiling:.6f}/round, ${ceiling * ROUNDS_PER_MONTH:.4f}/month")
    return lines


# The optional contracts measured: each is opted in on its own, against the default scenario.
OPTIONAL = ("tools",)
DEFAULT_SCENARIO = ROOT / "simulator" / "scenarios" / "default.yaml"


def optional_rounds(tmp: Path) -> list[str]:
    """One round per optional contract; prints what its cases add, returns BENCH lines."""
    lines = []
    with Simulator(DEFAULT_SCENARIO, seed=11) as sim:
        for contract in OPTIONAL:
            config = canary_config(tmp / f"canary-{contract}.yaml", optional_contracts=(contract,))
            results = run_probe(sim.base_url, config, tmp / f"reports-{contract}", state=tmp / "no-state.json").results
            cases = [c for c in results["cases"] if c["contract"] == contract]
            requests = [int(c["requests"]) for c in cases]
            usd = sum(float(c["cost_usd"]) for c in cases)
            outcomes: dict[str, int] = {}
            for c in cases:
                outcomes[c["outcome"]] = outcomes.get(c["outcome"], 0) + 1
            verdicts = ",".join(f"{k}:{v}" for k, v in sorted(outcomes.items()))
            print()
            print(f"optional contract {contract} on the default scenario ({len(cases)} endpoints): "
                  f"+{sum(requests)} requests/round (median {statistics.median(requests):g}, max {max(requests)} "
                  f"per endpoint), +${usd:.6f}/round, +${usd * ROUNDS_PER_MONTH:.4f}/month; {verdicts}")
            lines.append(bench_line("cost", kind=f"optional-{contract}", providers=len(cases), requests=sum(requests),
                                    requests_max=max(requests), usd_round=usd, usd_month=usd * ROUNDS_PER_MONTH,
                                    verdicts=verdicts))
    return lines


# All three optional contracts together, on hosts that list `tools` and `stop` (the default scenario's
# list neither `stop` nor, for some, `tools`).
TASK_OPTIONAL = ("tools", "stop", "fidelity")


def optional_round(tmp: Path) -> list[str]:
    """One round with the three optional contracts on; prints what each adds, returns BENCH lines."""
    hosts = [endpoint(f"host{i}/fp8", params=(*PLAIN_PARAMS, "tools", "stop")) for i in range(4)]
    scenario_file = write_yaml(tmp / "optional.yaml", scenario("optional-cost", hosts))
    with Simulator(scenario_file, seed=11) as sim:
        config = canary_config(tmp / "canary-optional.yaml", optional_contracts=TASK_OPTIONAL)
        results = run_probe(sim.base_url, config, tmp / "reports-optional", state=tmp / "no-state.json").results
    print()
    print(f"optional contracts {', '.join(TASK_OPTIONAL)} on {len(hosts)} healthy hosts, one round, per endpoint:")
    print(f"{'contract':<10} {'requests':>8} {'prompt tok':>10} {'compl. tok':>10} "
          f"{'USD/round':>11} {'USD/month':>10}  outcomes")
    lines = []
    for contract in TASK_OPTIONAL:
        cases = [c for c in results["cases"] if c["contract"] == contract]
        n = max(1, len(cases))
        figures = {k: sum(c[k] for c in cases) / n for k in FIGURES}
        outcomes = ",".join(sorted({c["outcome"] for c in cases}))
        print(f"{contract:<10} {figures['requests']:>8g} {figures['prompt_tokens']:>10g} "
              f"{figures['completion_tokens']:>10g} {figures['cost_usd']:>11.6f} "
              f"{figures['cost_usd'] * ROUNDS_PER_MONTH:>10.4f}  {outcomes}")
        lines.append(bench_line("cost", kind=f"optional-{contract}", requests=figures["requests"],
                                prompt_tokens=figures["prompt_tokens"], completion_tokens=figures["completion_tokens"],
                                usd_round=figures["cost_usd"], usd_month=figures["cost_usd"] * ROUNDS_PER_MONTH))
    mine = [c for c in results["cases"] if c["contract"] in TASK_OPTIONAL]
    every = results["cases"]
    n = len(hosts)
    added, usd = sum(c["requests"] for c in mine) / n, sum(c["cost_usd"] for c in mine) / n
    total_req, total_usd = sum(c["requests"] for c in every) / n, sum(c["cost_usd"] for c in every) / n
    print(f"{'all three':<10} {added:>8g} {'':>10} {'':>10} {usd:>11.6f} {usd * ROUNDS_PER_MONTH:>10.4f}  "
          f"(a clean endpoint's whole round with them: {total_req:g} requests, ${total_usd:.6f}, "
          f"${total_usd * ROUNDS_PER_MONTH:.4f}/month)")
    lines.append(bench_line("cost", kind="optional-all", requests=added, usd_round=usd,
                            usd_month=usd * ROUNDS_PER_MONTH, round_requests=total_req, round_usd=total_usd))
    return lines


def main_all() -> None:
    main()
    with tempfile.TemporaryDirectory(prefix="canary-cost-optional-") as tmp:
        optional = optional_rounds(Path(tmp))
    with tempfile.TemporaryDirectory(prefix="canary-cost-reasoning-") as tmp:
        lines = reasoning_rounds(Path(tmp)) + optional_round(Path(tmp))
    print()
    for line in (*optional, *lines):
        print(line)


if __name__ == "__main__":
    main_all()
