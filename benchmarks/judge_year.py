"""A year of rounds through the judge: time per round and a state file that must not grow.

    .venv/bin/python benchmarks/judge_year.py [--rounds 17520] [--providers 64] [--cli-rounds 500] [--seed 7]

Part 1 (pure rules): 17,520 half-hourly rounds (one year) for one model with 64 endpoints go
through core.results_read.read_results and judge.suspension.rules.apply_round, in enforce mode, exactly as
`canary judge` calls them, but without files. The state is serialised as canary/state/judge_files.py writes
it (core.field_rules.written + the same json.dumps) at 1 day, 1 week, 1 month and 1 year; the audit lines
the judge would append are serialised too and their bytes summed (the audit log grows with
decisions by design; the state file must not grow with history).

Part 2 (the real command): the first --cli-rounds rounds of the same year through
`canary judge` (canary.cli.main.main in this process, --no-notify), writing decisions.json, the audit
log and the state file atomically (temp file, fsync, rename) in a temporary folder, to show
what the file I/O and fsyncs cost per round. One extra round run as a subprocess shows the
interpreter start-up a scheduled job pays once per round.

Noise (fixed seed, reproducible): every endpoint is probed on latency, refusal, structured and
language each round; a case is a transport error with probability 10% / 4 per contract (so
~10% of endpoint-rounds hold one), language is inconclusive 2% of the time, a healthy endpoint
fails one contract 0.3% of the time (never twice in a row on purpose, so a rare odd reply never
suspends). Four "degrader" hosts go bad for stretches (6 hours to 3 days) every few days to
weeks, failing structured or language 80% of the time while bad, so suspensions, early
restores, expiries, the 1/3/7-day ladder and the 14-day fade all happen.

The last line is machine-parsable:

    BENCH judge_year rounds=17520 providers=64 seconds=… state_bytes_week=… state_bytes_year=…
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from canary.cli.main import main as canary_main
from canary.state import audit
from core.config import load_config
from core.field_rules import written
from core.policy import ENFORCE
from core.results_read import read_results
from core.vocabulary import CONTRACTS, LANGUAGES
from judge.suspension.rules import apply_round
from judge.suspension.state import JudgeState

MODEL = "bench/year-model"
T0 = datetime(2026, 1, 1, tzinfo=UTC)
HALF_HOUR = timedelta(minutes=30)
ROUNDS_PER_DAY = 48
CHECKPOINTS = {"day": ROUNDS_PER_DAY, "week": 7 * ROUNDS_PER_DAY, "month": 30 * ROUNDS_PER_DAY,
               "year": 365 * ROUNDS_PER_DAY}
TRANSPORT_ERROR_RATE = 0.10 / len(CONTRACTS)   # ~10% of endpoint-rounds hold one transport error
INCONCLUSIVE_RATE = 0.02                       # short or ambiguous language replies
ODD_FAIL_RATE = 0.003                          # a single odd failure on a healthy endpoint
DEGRADERS = 4                                  # hosts that go bad for stretches
BAD_FAIL_RATE = 0.8                            # while bad, a degrader fails this often


def iso(t: datetime) -> str:
    return t.isoformat().replace("+00:00", "Z")


def providers(n: int) -> list[str]:
    return [f"host{i:03d}/{('fp8', 'bf16', 'fp16', 'int4')[i % 4]}" for i in range(n)]


def bad_stretches(rng: random.Random, rounds: int) -> list[tuple[int, int]]:
    """(start, end) round indices when a degrader is bad: 6 h to 3 days, every 2 to 20 days."""
    out, at = [], rng.randrange(ROUNDS_PER_DAY * 3)
    while at < rounds:
        length = rng.randrange(12, 3 * ROUNDS_PER_DAY)
        out.append((at, at + length))
        at += length + rng.randrange(2 * ROUNDS_PER_DAY, 20 * ROUNDS_PER_DAY)
    return out


class Fleet:
    """Generates results.json documents, round after round, from a seeded random source."""

    def __init__(self, tags: list[str], rounds: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.tags = tags
        self.bad = {t: bad_stretches(self.rng, rounds) for t in tags[:DEGRADERS]}
        self.last_odd: dict[str, int] = {}
        self.plan: dict[str, str] = {}

    def _is_bad(self, tag: str, i: int) -> bool:
        return any(a <= i < b for a, b in self.bad.get(tag, ()))

    def results(self, i: int) -> dict[str, Any]:
        at = T0 + i * HALF_HOUR
        rng = self.rng
        cases = []
        for pos, tag in enumerate(self.tags):
            bad = self._is_bad(tag, i)
            odd = None
            if not bad and rng.random() < ODD_FAIL_RATE and self.last_odd.get(tag, -9) < i - 1:
                odd = rng.choice(CONTRACTS)
                self.last_odd[tag] = i
            lang = self.plan.get(tag, LANGUAGES[pos % len(LANGUAGES)])
            for contract in CONTRACTS:
                outcome = "pass"
                if rng.random() < TRANSPORT_ERROR_RATE:
                    outcome = "transport_error"
                elif bad and contract in ("structured", "language") and rng.random() < BAD_FAIL_RATE or contract == odd:
                    outcome = "fail"
                elif contract == "language" and rng.random() < INCONCLUSIVE_RATE:
                    outcome = "inconclusive"
                case: dict[str, Any] = {"model": MODEL, "provider": tag, "contract": contract, "outcome": outcome,
                                        "reason": f"{contract}: {outcome}", "control": False,
                                        "ttft_s": 0.4, "duration_s": 2.0, "requests": 1}
                if contract == "language":
                    case.update(language=lang, anomaly=outcome == "fail")
                cases.append(case)
        return {"schema_version": 1, "round_id": f"{at:%Y%m%dT%H%M%SZ}-bench", "started_at": iso(at),
                "finished_at": iso(at + timedelta(seconds=20)), "complete": True, "incomplete_reason": None,
                # synthetic rounds, not the bundled simulator's: `canary judge` refuses simulator rounds
                # on a state outside simulator-state/ (issue 9)
                "upstream": "custom", "models": {MODEL: {"providers": list(self.tags)}},
                "weak_probes": [], "cases": cases}

    def follow(self, state: JudgeState) -> None:
        """Use the judge's language plan, as the probes do."""
        self.plan = dict(state.language_plan().get(MODEL, {}))


def state_bytes(state: JudgeState) -> int:
    # The exact text core.store.atomic_write_json writes.
    return len((json.dumps(written(state), indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode())


def run_pure(rounds: int, n_providers: int, seed: int) -> dict[str, Any]:
    config = load_config(ROOT / "canary.yaml")  # the project's rules: 2 rounds, 1/3/7 days, 14-day fade, floor 2
    policy = config.rules
    fleet = Fleet(providers(n_providers), rounds, seed)
    state = JudgeState()
    actions: Counter[str] = Counter()
    rungs: Counter[int] = Counter()
    audit_bytes = 0
    sizes: dict[str, int] = {}
    max_state, min_state = 0, 1 << 62
    gen_s = judge_s = 0.0
    for i in range(rounds):
        t0 = time.perf_counter()
        raw = fleet.results(i)
        t1 = time.perf_counter()
        now = T0 + i * HALF_HOUR + timedelta(seconds=25)
        report = read_results(raw)
        state, decisions = apply_round(state, report, replace(policy, mode=ENFORCE), now=now)
        t2 = time.perf_counter()
        gen_s += t1 - t0
        judge_s += t2 - t1
        fleet.follow(state)
        for d in decisions:
            actions[d.action.value] += 1
            if d.rung is not None and d.action.value == "suspend":
                rungs[d.rung] += 1
        lines = audit.decision_lines(decisions, round_id=report.round_id, mode=ENFORCE, now=now)
        audit_bytes += sum(len((audit.encoded(line) + "\n").encode()) for line in lines)
        if i % ROUNDS_PER_DAY == 0 or i + 1 in CHECKPOINTS.values():
            size = state_bytes(state)
            max_state, min_state = max(max_state, size), min(min_state, size)
        for name, at in CHECKPOINTS.items():
            if i + 1 == at:
                sizes[name] = state_bytes(state)
    if "year" not in sizes:
        sizes["final"] = state_bytes(state)
    return {"judge_s": judge_s, "gen_s": gen_s, "actions": actions, "rungs": rungs, "audit_bytes": audit_bytes,
            "sizes": sizes, "max_state": max_state, "min_state": min_state, "bad": fleet.bad}


def write_config(root: Path) -> Path:
    config = root / "canary.yaml"
    config.write_text(
        f"mode: enforce\nmodels: [{MODEL}]\npaths:\n  reports: {root / 'reports'}\n"
        f"  state: {root / 'state' / 'canary-state.json'}\n  audit: {root / 'state' / 'audit.jsonl'}\n"
        f"  builtin: {root / 'exclusions' / 'builtin.yaml'}\n  incidents: {root / 'exclusions' / 'incidents.yaml'}\n",
        encoding="utf-8")
    (root / "exclusions").mkdir()
    (root / "exclusions" / "builtin.yaml").write_text("# reviewed exclusions\n{}\n", encoding="utf-8")
    (root / "exclusions" / "incidents.yaml").write_text("# incidents\n{}\n", encoding="utf-8")
    return config


def run_cli(rounds: int, n_providers: int, seed: int) -> dict[str, Any]:
    fleet = Fleet(providers(n_providers), rounds + 1, seed)
    with tempfile.TemporaryDirectory(prefix="canary-judge-bench-") as tmp:
        root = Path(tmp)
        config = write_config(root)
        results = root / "reports" / "results.json"
        results.parent.mkdir(parents=True)
        state_path = root / "state" / "canary-state.json"
        elapsed = 0.0
        sizes = {}
        for i in range(rounds):
            results.write_text(json.dumps(fleet.results(i)), encoding="utf-8")
            now = iso(T0 + i * HALF_HOUR + timedelta(seconds=25))
            t0 = time.perf_counter()
            code = canary_main(["--config", str(config), "judge", str(results), "--now", now, "--no-notify"])
            elapsed += time.perf_counter() - t0
            if code != 0:
                raise SystemExit(f"canary judge failed at round {i} (exit {code})")
            from canary.state.judge_files import load_state
            fleet.follow(load_state(state_path))
            for name, at in CHECKPOINTS.items():
                if i + 1 == at:
                    sizes[name] = state_path.stat().st_size
        # One more round as a separate process, the way the workflow runs it.
        results.write_text(json.dumps(fleet.results(rounds)), encoding="utf-8")
        now = iso(T0 + rounds * HALF_HOUR + timedelta(seconds=25))
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "canary", "--config", str(config), "judge", str(results),
                        "--now", now, "--no-notify"], check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
        process_s = time.perf_counter() - t0
        return {"seconds": elapsed, "sizes": sizes, "state_bytes": state_path.stat().st_size,
                "audit_bytes": (root / "state" / "audit.jsonl").stat().st_size,
                "decisions_bytes": (root / "reports" / "decisions.json").stat().st_size, "process_s": process_s}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=365 * ROUNDS_PER_DAY)
    parser.add_argument("--providers", type=int, default=64)
    parser.add_argument("--cli-rounds", type=int, default=500)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    print(f"judge_year: {args.rounds} rounds x {args.providers} endpoints x {len(CONTRACTS)} contracts "
          f"(enforce mode, seed {args.seed}, {os.cpu_count()} CPUs)")
    start = time.perf_counter()
    pure = run_pure(args.rounds, args.providers, args.seed)
    total = time.perf_counter() - start
    rate = args.rounds / pure["judge_s"]
    print("\n[pure rules: read_results + apply_round]")
    print(f"  total wall time          {total:8.1f} s  (of which generating results {pure['gen_s']:.1f} s)")
    print(f"  judging time             {pure['judge_s']:8.1f} s  -> {rate:,.0f} rounds/s, "
          f"{1000 * pure['judge_s'] / args.rounds:.2f} ms/round, "
          f"{1e6 * pure['judge_s'] / (args.rounds * args.providers * len(CONTRACTS)):.1f} us/case")
    for name in ("day", "week", "month", "year", "final"):
        if name in pure["sizes"]:
            print(f"  state file after {name:<6}  {pure['sizes'][name]:8,d} bytes")
    print(f"  state file, sampled daily: min {pure['min_state']:,d} / max {pure['max_state']:,d} bytes")
    print(f"  audit log (year)         {pure['audit_bytes']:8,d} bytes  (append-only, grows with decisions)")
    print(f"  decisions                {dict(sorted(pure['actions'].items()))}")
    print(f"  suspensions by rung      {dict(sorted(pure['rungs'].items()))}")
    stretches = sum(len(v) for v in pure["bad"].values())
    print(f"  degraded stretches       {stretches} across {len(pure['bad'])} hosts")

    if args.cli_rounds:
        cli = run_cli(args.cli_rounds, args.providers, args.seed)
        print(f"\n[canary judge command, files in a temporary folder, {args.cli_rounds} rounds]")
        print(f"  total                    {cli['seconds']:8.2f} s  -> "
              f"{args.cli_rounds / cli['seconds']:,.1f} rounds/s, "
              f"{1000 * cli['seconds'] / args.cli_rounds:.1f} ms/round (read, judge, 3 atomic writes + fsyncs)")
        for name, size in cli["sizes"].items():
            print(f"  state file after {name:<6}  {size:8,d} bytes")
        print(f"  state file at the end    {cli['state_bytes']:8,d} bytes")
        print(f"  audit log                {cli['audit_bytes']:8,d} bytes")
        print(f"  decisions.json           {cli['decisions_bytes']:8,d} bytes")
        print(f"  one round as a process   {cli['process_s']:8.2f} s  (python start-up + imports + the round)")

    sizes = pure["sizes"]
    print(f"BENCH judge_year rounds={args.rounds} providers={args.providers} seconds={pure['judge_s']:.2f} "
          f"rounds_per_s={rate:.0f} state_bytes_week={sizes.get('week', 0)} state_bytes_month={sizes.get('month', 0)} "
          f"state_bytes_year={sizes.get('year') or sizes.get('final', 0)} audit_bytes_year={pure['audit_bytes']}"
          + (f" cli_rounds={args.cli_rounds} cli_ms_per_round={1000 * cli['seconds'] / args.cli_rounds:.1f}"
             if args.cli_rounds else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
