"""The streak's time rules on a realistic schedule: what they prevent, and what they cost.

    .venv/bin/python benchmarks/streak_timing.py [--weeks 26] [--seed 5]

A synthetic schedule (fixed seed) plays through the pure rules (judge.suspension.rules.apply_round, as
`canary judge` calls them) twice: with the time rules (Policy(): a counted round pending at most
2 h, counted rounds at least 20 min apart) and without them (the previous behaviour: any number
of frozen rounds between two failed rounds, every round counted). Both runs see exactly the same
rounds and outcomes.

The schedule is GitHub Actions' as documented and as seen: a run every 30 minutes at :07 and :37,
started 0-5 min late most of the time, 5-15 min late often, up to an hour late rarely, 2% of runs
skipped; after a round in which a host failed, a person starts a manual run 2-10 minutes later
30% of the time (to "check"). The fleet, per model of 12 hosts:
- 8 healthy hosts: 2.5% transport errors per round, a single odd quality failure 0.3% of the
  time, and now and then an outage (unreachable for 6 to 30 hours, every 5 to 20 days), which
  a host often enters and leaves with a broken reply (an odd failure just before and just after);
- 2 flaky-judged hosts: healthy, but one contract misfires on their style 4% of the time;
- 2 degrading hosts: bad for stretches (6 hours to 3 days, every 5 to 20 days), failing 90% of
  their rounds while bad.

Printed per rule set: suspensions of healthy and flaky hosts (false), their evidence (the gap
between the two failed rounds that suspended), detected bad stretches and the delay from a
stretch's start to its suspension, early restores, and how many host-rounds the gap rule set
aside. Synthetic: it measures the rules' effect on this schedule, not a real fleet.

    BENCH streak_timing weeks=26 false_with=… false_without=… detected_with=… detected_without=… delay_p50_min_with=… …
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _support import bench_line

from core.policy import ENFORCE, Policy
from core.results_read import read_results
from judge.suspension.decisions import Action, Rule
from judge.suspension.rules import apply_round
from judge.suspension.state import JudgeState

MODEL = "bench/timing-model"
T0 = datetime(2026, 1, 5, tzinfo=UTC)
CONTRACTS = ("latency", "refusal", "structured", "language")
HEALTHY = [f"ok{i}/fp8" for i in range(8)]
FLAKY = ["flaky0/fp8", "flaky1/fp8"]
BAD = ["bad0/fp8", "bad1/fp8"]
TRANSPORT_RATE = 0.025
ODD_RATE = 0.003
FLAKY_RATE = 0.04
BAD_FAIL_RATE = 0.9
EDGE_FAIL_RATE = 0.5          # a host entering or leaving an outage often sends one broken reply
MANUAL_RATE = 0.3
# Without the time rules: a window no round can exceed and no minimum gap.
UNTIMED = Policy(pending_failure_hours=24 * 365 * 10, min_round_gap_minutes=0)


def stretches(rng: random.Random, end: datetime, shortest_h: float,
              longest_h: float) -> list[tuple[datetime, datetime]]:
    """(start, end) of bad or unreachable periods, every 5 to 20 days."""
    out, at = [], T0 + timedelta(days=rng.uniform(1, 10))
    while at < end:
        length = timedelta(hours=rng.uniform(shortest_h, longest_h))
        out.append((at, at + length))
        at += length + timedelta(days=rng.uniform(5, 20))
    return out


def schedule(rng: random.Random, weeks: int) -> list[tuple[datetime, bool]]:
    """(started_at, manual?) of every round; manual runs are decided while playing (they follow failures)."""
    out = []
    last = T0
    for slot in range(weeks * 7 * 48):
        if rng.random() < 0.02:
            continue  # skipped by GitHub
        draw = rng.random()
        late = rng.uniform(0, 5) if draw < 0.8 else rng.uniform(5, 15) if draw < 0.97 else rng.uniform(15, 60)
        at = max(T0 + slot * timedelta(minutes=30) + timedelta(minutes=7 + late), last + timedelta(minutes=1))
        out.append((at.replace(microsecond=0), False))
        last = at
    return out


@dataclass
class Fleet:
    rng: random.Random
    end: datetime
    outages: dict[str, list[tuple[datetime, datetime]]] = field(default_factory=dict)
    bad: dict[str, list[tuple[datetime, datetime]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.outages = {h: stretches(self.rng, self.end, 6, 30) for h in HEALTHY}
        self.bad = {h: stretches(self.rng, self.end, 6, 72) for h in BAD}

    def outcomes(self, at: datetime) -> dict[str, dict[str, str]]:
        """Per host, per contract: the outcome of a round started at `at` (random draws in fixed order)."""
        out = {}
        for host in HEALTHY + FLAKY + BAD:
            per = {c: "pass" for c in CONTRACTS}
            down = any(a <= at < b for a, b in self.outages.get(host, ()))
            near = timedelta(minutes=40)
            edge = any(timedelta(0) <= (a - at) < near or timedelta(0) <= (at - b) < near
                       for a, b in self.outages.get(host, ()))
            bad = any(a <= at < b for a, b in self.bad.get(host, ()))
            draws = [self.rng.random() for _ in range(4)]
            if down:
                per = {c: "transport_error" for c in CONTRACTS}
            elif draws[0] < TRANSPORT_RATE:
                per[CONTRACTS[int(draws[1] * 4) % 4]] = "transport_error"
            elif (bad and draws[2] < BAD_FAIL_RATE) or (edge and draws[2] < EDGE_FAIL_RATE) \
                    or (host in FLAKY and draws[2] < FLAKY_RATE) or draws[3] < ODD_RATE:
                per["language" if host in FLAKY else "structured"] = "fail"
            out[host] = per
        return out


def results(n: int, at: datetime, outcomes: dict[str, dict[str, str]]) -> dict[str, Any]:
    cases = [{"model": MODEL, "provider": h, "contract": c, "outcome": o, "reason": f"{c} {o}", "control": False,
              **({"language": "pt", "anomaly": o == "fail"} if c == "language" else {})}
             for h, per in outcomes.items() for c, o in per.items()]
    stamp = at.isoformat().replace("+00:00", "Z")
    return {"schema_version": 1, "round_id": f"r{n:06d}", "started_at": stamp, "finished_at": stamp,
            "complete": True, "models": {MODEL: {"providers": sorted(outcomes)}}, "cases": cases}


@dataclass
class Tally:
    suspensions: list[tuple[str, datetime, timedelta]] = field(default_factory=list)  # host, when, evidence gap
    restores: int = 0
    not_counted: Counter[str] = field(default_factory=Counter)  # "manual" / "scheduled" rounds set aside
    restarted: int = 0
    manual: int = 0


def play(weeks: int, seed: int) -> tuple[dict[str, Tally], Fleet, int]:
    rng = random.Random(seed)
    planned = schedule(rng, weeks)
    fleet = Fleet(rng, planned[-1][0])
    rules = {"with": Policy(), "without": UNTIMED}
    states = {k: JudgeState() for k in rules}
    tallies = {k: Tally() for k in rules}
    rounds, n, queue = 0, 0, list(planned)
    last_at = T0
    while queue:
        at, manual = queue.pop(0)
        at = max(at, last_at + timedelta(seconds=30))
        outcomes = fleet.outcomes(at)
        report = read_results(results(n, at, outcomes))
        n += 1
        rounds += 1
        last_at = at
        for key, policy in rules.items():
            before = states[key]
            states[key], decisions = apply_round(before, report, replace(policy, mode=ENFORCE), now=at)
            _count(tallies[key], decisions, before, at, "manual" if manual else "scheduled")
            tallies[key].manual += manual
        failed = any(o == "fail" for per in outcomes.values() for o in per.values())
        if failed and not manual and rng.random() < MANUAL_RATE:
            manual_at = at + timedelta(minutes=rng.uniform(2, 10))
            if not queue or manual_at < queue[0][0]:
                queue.insert(0, (manual_at.replace(microsecond=0), True))
    return tallies, fleet, rounds


def _count(t: Tally, decisions: list[Any], before: JudgeState, at: datetime, kind: str) -> None:
    for d in decisions:
        if d.action is Action.SUSPEND:
            # The evidence: how long after the previous counted (failed) round this one came.
            previous = before.provider(MODEL, d.provider).last_counted_at
            t.suspensions.append((d.provider, at, at - previous if previous else timedelta(0)))
        elif d.action is Action.RESTORE:
            t.restores += 1
        elif d.action is Action.NOT_COUNTED:
            t.not_counted[kind] += 1
        elif d.action is Action.STREAK_RESTARTED and d.rule is Rule.PENDING_WINDOW:  # not failing_contract_passed
            t.restarted += 1


def detection(t: Tally, fleet: Fleet) -> tuple[int, int, list[float]]:
    """(stretches, detected, delays in minutes from a stretch's start to its first suspension)."""
    total = detected = 0
    delays = []
    for host, periods in fleet.bad.items():
        for a, b in periods:
            total += 1
            hits = [when for h, when, _ in t.suspensions if h == host and a <= when <= b + timedelta(minutes=30)]
            if hits:
                detected += 1
                delays.append((min(hits) - a).total_seconds() / 60)
    return total, detected, delays


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--weeks", type=int, default=26)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    tallies, fleet, rounds = play(args.weeks, args.seed)
    print(f"{rounds} rounds over {args.weeks} weeks ({tallies['with'].manual} manual re-runs); "
          f"{sum(len(v) for v in fleet.outages.values())} outages of healthy hosts, "
          f"{sum(len(v) for v in fleet.bad.values())} bad stretches")
    figures: dict[str, Any] = {}
    for key, t in tallies.items():
        false = [(h, gap) for h, _, gap in t.suspensions if h not in BAD]
        gaps = Counter("> 2 h" if g > timedelta(hours=2) else "< 20 min" if g < timedelta(minutes=20) else "20 min-2 h"
                       for _, g in false)
        total, detected, delays = detection(t, fleet)
        p50 = statistics.median(delays) if delays else 0.0
        print(f"\n{key} the time rules:")
        print(f"  false suspensions (healthy or flaky-judged hosts): {len(false)}  "
              f"evidence gap: {dict(sorted(gaps.items())) or '-'}")
        print(f"  bad stretches detected: {detected} of {total}; delay from the stretch's start: "
              f"median {p50:.0f} min, max {max(delays, default=0):.0f} min")
        print(f"  early restores: {t.restores}; rounds not counted (too soon): {t.not_counted['manual']} manual, "
              f"{t.not_counted['scheduled']} scheduled; streaks restarted (lapsed): {t.restarted}")
        figures.update({f"false_{key}": len(false), f"false_far_or_close_{key}": gaps["> 2 h"] + gaps["< 20 min"],
                        f"detected_{key}": detected, f"delay_p50_min_{key}": float(p50),
                        f"delay_max_min_{key}": float(max(delays, default=0)), f"restores_{key}": t.restores})
    figures["not_counted_scheduled"] = tallies["with"].not_counted["scheduled"]
    print(bench_line("streak_timing", weeks=args.weeks, rounds=rounds, **figures))


if __name__ == "__main__":
    main()
