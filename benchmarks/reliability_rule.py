"""The opt-in reliability rule (rules.reliability, judge/suspension/reliability.py) on a noisy healthy week.

    .venv/bin/python benchmarks/reliability_rule.py [--rounds 336] [--seeds 5] [--alpha 1e-4] [--ratio 2]

Pure and fast: synthetic round records through the real rules (judge/suspension/rules.py
apply_round, observe mode, rules.reliability on). Per round, 6 healthy hosts answer 5 requests
each (4 cases, one refusal confirmation); each request is a host error (a stream cut after the
first byte, an error in the stream, a 200 with an error body) with probability 6 % and another
transport error (429) with 4 % (benchmarks/fleet_evidence.py's noise of healthy hosts), else a
pass. A seventh host cuts 30 % of its streams (the issue's flaky-stream host). The rule's
threshold can be swept (--alpha, --ratio) to see what a looser one would have done.

Figures per seed: healthy rounds failed by the rule, healthy hosts would-suspended (false
suspensions), and the round of the flaky host's first would-suspend. Machine-parsable last line
(one line, wrapped here):

    BENCH reliability_rule alpha=… ratio=… seeds=… rounds=… healthy_failed_rounds=…
        false_suspensions=… flaky_first_max=…
"""

from __future__ import annotations

import argparse
import random
import sys
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _support import bench_line  # noqa: E402

from core.policy import OBSERVE, Policy  # noqa: E402
from core.results_read import read_results  # noqa: E402
from judge.suspension import reliability  # noqa: E402
from judge.suspension.decisions import Action  # noqa: E402
from judge.suspension.rules import apply_round  # noqa: E402
from judge.suspension.state import JudgeState  # noqa: E402

MODEL = "acme/model-x"
HEALTHY = tuple(f"host{i}/fp8" for i in range(6))
FLAKY = "flaky/fp8"
CONTRACTS = ("latency", "refusal", "structured", "language")
HOST_ERROR, OTHER_ERROR, FLAKY_ERROR = 0.06, 0.04, 0.30
T0 = datetime(2026, 12, 7, tzinfo=UTC)


def attempt(rng: random.Random, host_error: float) -> dict[str, Any]:
    draw = rng.random()
    if draw < host_error:
        return {"outcome": "transport_error", "error_kind": rng.choice(sorted(reliability.HOST_ERRORS))}
    if draw < host_error + OTHER_ERROR:
        return {"outcome": "transport_error", "error_kind": "http_429"}
    return {"outcome": "pass", "finish_reason": "stop"}


def round_doc(n: int, rng: random.Random) -> dict[str, Any]:
    cases = []
    for provider in (*HEALTHY, FLAKY):
        rate = FLAKY_ERROR if provider == FLAKY else HOST_ERROR
        for contract in CONTRACTS:
            attempts = [attempt(rng, rate) for _ in range(2 if contract == "refusal" else 1)]
            failed = next((a for a in attempts if a["outcome"] != "pass"), None)
            cases.append({"model": MODEL, "provider": provider, "contract": contract,
                          "outcome": failed["outcome"] if failed else "pass",
                          "reason": f"transport: {failed['error_kind']}" if failed else "ok", "attempts": attempts,
                          **({"language": "pt"} if contract == "language" else {})})
    at = T0 + timedelta(minutes=30 * n)
    return {"schema_version": 1, "round_id": f"r-{at:%Y%m%dT%H%M%S}", "started_at": at.isoformat(),
            "complete": True, "models": {MODEL: {"providers": [*HEALTHY, FLAKY]}}, "cases": cases}


def week(seed: int, rounds: int) -> tuple[int, set[str], int | None]:
    rng = random.Random(seed)
    policy = replace(Policy(), reliability=True, mode=OBSERVE)
    state, failed, suspended, flaky_first = JudgeState(), 0, set(), None
    for n in range(1, rounds + 1):
        report = read_results(round_doc(n, rng))
        state, decisions = apply_round(state, report, policy, now=report.started_at)
        # A healthy host's round the rule failed: its newest kept reasons name the reliability evidence.
        failed += sum(1 for p in HEALTHY if any(r.startswith("reliability: ") for r in
                                                state.provider(MODEL, p).last_reasons)
                      and state.provider(MODEL, p).last_counted_at == report.started_at)
        for d in decisions:
            if d.action is Action.WOULD_SUSPEND:
                suspended.add(d.provider)
                if d.provider == FLAKY and flaky_first is None:
                    flaky_first = n
    return failed, suspended - {FLAKY}, flaky_first


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=336)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--alpha", type=float, default=reliability.RULE_ALPHA)
    parser.add_argument("--ratio", type=float, default=reliability.RATE_RATIO)
    args = parser.parse_args()
    totals: list[tuple[int, set[str], int | None]] = []
    with mock.patch.object(reliability, "RULE_ALPHA", args.alpha), mock.patch.object(reliability, "RATE_RATIO",
                                                                                     args.ratio):
        for seed in range(args.seeds):
            failed, false, first = week(seed, args.rounds)
            totals.append((failed, false, first))
            print(f"seed {seed}: healthy rounds failed by the rule {failed}, healthy hosts would-suspended "
                  f"{len(false)} {sorted(false) or ''}, flaky host's first would-suspend: round {first}", flush=True)
    firsts = [f for _, _, f in totals]
    print(bench_line("reliability_rule", alpha=args.alpha, ratio=args.ratio, seeds=args.seeds, rounds=args.rounds,
                     healthy_failed_rounds=sum(f for f, _, _ in totals),
                     false_suspensions=sum(len(s) for _, s, _ in totals),
                     flaky_missed=sum(f is None for f in firsts),
                     flaky_first_max=max((f for f in firsts if f is not None), default=0)))


if __name__ == "__main__":
    main()
