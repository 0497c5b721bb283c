"""False suspensions: a simulated week of rounds of a healthy but noisy fleet -> zero suspensions.

    .venv/bin/python benchmarks/false_suspensions.py [--rounds 336] [--endpoints 6] [--mode observe]

The fleet is healthy (fast enough that a round takes a few seconds) with the noise real hosts
show: ~10% transport errors (http_error 429/502, mid_stream_error, truncated_stream), short
replies (a few words: too short to judge), a character's catch-phrase in another language,
and the banks' Markdown-led roleplay (`*She smiles.* "..."`) on every reply. No positive
control is configured: a filtering control host is, by design, not healthy.

How it runs (chosen for speed without leaving the real commands): ONE long-lived simulator
subprocess for the whole week (its round number set through `/_sim/control` before each
round, its per-request RNG advancing, so every round draws fresh noise), then per round one
`pytest probes` subprocess (reading the judge's language plan from --canary-state, exactly as
a scheduled round does, its started_at set to <t0 + N x 30 min> with --canary-virtual-time)
and one `canary judge --now <t0 + N x 30 min>` subprocess. A round
costs ~3 s here (mostly Python and pytest start-up), so 336 rounds take ~20 minutes.

Prints the decisions that matter (suspend, would_suspend, floor_held: must be none), the
rounds classified failed per provider, and the false-positive rate per contract (fail cases
/ cases). Machine-parsable last line (one line, wrapped here):

    BENCH false_suspensions rounds=336 endpoints=6 suspensions=0 would_suspend=0 floor_held=0
        failed_rounds=… fp_latency=… …
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _support import (
    JudgeFiles,
    Simulator,
    bench_line,
    canary_config,
    endpoint,
    read_state,
    run_judge,
    run_probe,
    scenario,
    write_yaml,
)

from core import times

CONTRACTS = ("latency", "refusal", "structured", "language")
T0 = datetime(2026, 12, 7, 0, 0, tzinfo=UTC)
ROUND_MINUTES = 30
BAD_ACTIONS = ("suspend", "would_suspend", "floor_held")
# Transport noise adds up to 10%; content noise (short replies, catch-phrases) another 15%.
NOISE: dict[str, dict[str, Any]] = {
    "http_error": {"rate": 0.04, "status": [429, 502, 503], "retry_after": 1},
    "mid_stream_error": {"rate": 0.03, "shape": "random", "code": 502},
    "truncated_stream": {"rate": 0.03},
    "short_reply": {"rate": 0.05, "words": 3},
    "catch_phrase": {"rate": 0.10},
}


def noisy_fleet(count: int) -> list[dict[str, Any]]:
    """`count` healthy hosts with realistic noise; one of them also often slow to start (not past 10 s)."""
    hosts = [endpoint(f"host{i}/fp8", ttft_ms=60 + 20 * i, jitter_ms=30, tokens_per_second=1500, faults=NOISE)
             for i in range(count)]
    return hosts


@dataclass
class Week:
    rounds: int = 0
    cases: Counter[str] = field(default_factory=Counter)                  # contract -> cases
    outcomes: Counter[tuple[str, str]] = field(default_factory=Counter)   # (contract, outcome) -> n
    actions: Counter[str] = field(default_factory=Counter)
    bad: list[str] = field(default_factory=list)
    failed_cases: list[str] = field(default_factory=list)
    failed_rounds: Counter[str] = field(default_factory=Counter)           # provider -> rounds classified failed
    probe_s: list[float] = field(default_factory=list)

    def fp_rate(self, contract: str) -> float:
        return self.outcomes[(contract, "fail")] / self.cases[contract] if self.cases[contract] else 0.0


def play(tmp: Path, *, rounds: int, endpoints: int, mode: str = "observe", seed: int = 11,
         echo: Any = None) -> Week:
    """Play `rounds` rounds through the real commands; return the tally."""
    scenario_file = write_yaml(tmp / "noisy.yaml", scenario("noisy-week", noisy_fleet(endpoints), keepalive_ms=100))
    config = canary_config(tmp / "canary.yaml", mode=mode)
    files = JudgeFiles(tmp / "judge")
    week = Week()
    with Simulator(scenario_file, seed=seed) as sim:
        for n in range(1, rounds + 1):
            sim.set_round(n)
            now = T0 + timedelta(minutes=ROUND_MINUTES * n)
            stamp = times.stamp(now)
            # The round's started_at is its place in the week (the simulator's virtual clock), so
            # the judge's time rules see half-hourly rounds, not the seconds between two runs.
            done = run_probe(sim.base_url, config, tmp / "reports", state=files.state,
                             extra=[f"--canary-virtual-time={stamp}"])
            week.probe_s.append(done.wall_s)
            results = done.results
            if not results.get("complete"):
                raise SystemExit(f"round {n} incomplete: {results.get('incomplete_reason')}\n{done.output[-2000:]}")
            decisions = run_judge(done.reports / "results.json", config, files,
                                  now=stamp, decisions=tmp / "decisions.json", mode=mode)
            _tally(week, n, results, decisions, read_state(files))
            if echo is not None and (n % 24 == 0 or n == rounds):
                echo(f"  round {n:>3}: {sum(week.outcomes[(c, 'fail')] for c in CONTRACTS)} failed cases so far, "
                     f"bad decisions {len(week.bad)}, last round {done.wall_s:.1f} s")
    return week


def _tally(week: Week, n: int, results: dict[str, Any], decisions: dict[str, Any], state: dict[str, Any]) -> None:
    week.rounds += 1
    for case in results["cases"]:
        if case.get("control"):
            continue
        week.cases[case["contract"]] += 1
        week.outcomes[(case["contract"], case["outcome"])] += 1
        if case["outcome"] == "fail":
            week.failed_cases.append(f"round {n} {case['provider']} {case['contract']}: {case['reason'][:160]}")
    failed_now = {c["provider"] for c in results["cases"] if c["outcome"] == "fail" and not c.get("control")}
    for provider in failed_now:
        week.failed_rounds[provider] += 1
    for d in decisions.get("decisions", []):
        week.actions[d["action"]] += 1
        if d["action"] in BAD_ACTIONS:
            week.bad.append(f"round {n}: {d['action']} {d['provider']}: {d['reason']}")


def report(week: Week, endpoints: int) -> list[str]:
    lines = [f"{week.rounds} rounds x {endpoints} endpoints; probe round median "
             f"{sorted(week.probe_s)[len(week.probe_s) // 2]:.1f} s", ""]
    lines.append(f"{'contract':<11} {'cases':>6} {'pass':>6} {'fail':>5} {'inconcl.':>8} {'transport':>9} {'n/a':>5} "
                 f"{'FP rate':>8}")
    for c in CONTRACTS:
        o = week.outcomes
        lines.append(f"{c:<11} {week.cases[c]:>6} {o[(c, 'pass')]:>6} {o[(c, 'fail')]:>5} {o[(c, 'inconclusive')]:>8} "
                     f"{o[(c, 'transport_error')]:>9} {o[(c, 'not_applicable')]:>5} {week.fp_rate(c):>8.4f}")
    lines.append("")
    lines.append("decisions: " + (", ".join(f"{a} {n}" for a, n in sorted(week.actions.items())) or "none"))
    lines.append(f"rounds with a failed case, per provider: {dict(sorted(week.failed_rounds.items())) or 'none'}")
    for line in week.failed_cases[:20]:
        lines.append(f"  fail: {line}")
    for line in week.bad:
        lines.append(f"  BAD: {line}")
    lines.append("")
    lines.append(f"suspensions {week.actions['suspend']}, would-suspends {week.actions['would_suspend']}, "
                 f"floor held {week.actions['floor_held']}: {'OK' if not week.bad else 'FALSE SUSPENSIONS'}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=336)
    parser.add_argument("--endpoints", type=int, default=6)
    parser.add_argument("--mode", choices=("observe", "enforce"), default="observe")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="canary-week-") as tmp:
        week = play(Path(tmp), rounds=args.rounds, endpoints=args.endpoints, mode=args.mode, seed=args.seed,
                    echo=lambda s: print(s, flush=True))
    for line in report(week, args.endpoints):
        print(line)
    print(f"total {time.monotonic() - start:.0f} s")
    print(bench_line("false_suspensions", rounds=week.rounds, endpoints=args.endpoints, mode=args.mode,
                     suspensions=week.actions["suspend"], would_suspend=week.actions["would_suspend"],
                     floor_held=week.actions["floor_held"], failed_rounds=sum(week.failed_rounds.values()),
                     **{f"fp_{c}": week.fp_rate(c) for c in CONTRACTS}))


if __name__ == "__main__":
    main()
