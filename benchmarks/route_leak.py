"""How soon a backend that stops applying provider.ignore is seen (issue 40 item 3), and that one that applies it
late but within the grace is not.

    .venv/bin/python benchmarks/route_leak.py [--trials 400] [--seed 3]

One model, 9 endpoints, one of them suspended (enforce) for days. A chat backend serves N replies a day
spread evenly over the endpoints provider.ignore leaves it, samples 5 % of them with the library's
rules (core/production.py: one record per 30-minute window; an endpoint with fewer than 5 sampled
replies merged into the model's remainder) and pushes each record 5 s to 3 min after its window
closes. Rounds start every 30 minutes, 0 to 15 minutes late (GitHub's schedule), and audit each
exporter's newest record through the real pure functions (judge/suspension/route_audit.py `newest`,
`route_audit`, `alarms`), as `canary judge` does.

- stale: at a random moment the backend stops applying the list (a stale cache, a fallback): the
  suspended endpoint gets its share again. The delay is from that moment to the first round that
  alarms, per traffic level.
- late: the backend applies every change of the list up to 25 minutes late (inside the 30-minute
  grace) while suspensions come and go every few hours: every alarm here would be false.

Last lines, machine-parsable:

    BENCH route_leak daily=100000 trials=400 seen=... p50_min=... p95_min=... max_min=...
    BENCH route_leak scenario=late rounds=... alarms=...
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.layers import SUSPENSION, Exclusion
from core.production import MIN_CELL, SCHEMA, ProductionRecord, ServedCell
from judge.suspension.route_audit import alarms, newest, route_audit

MODEL = "bench/leak-model"
HOSTS = [f"host{i}/fp8" for i in range(9)]
NAMES = {MODEL: {h: f"Host{i}" for i, h in enumerate(HOSTS)}}
WINDOW = timedelta(minutes=30)
T0 = datetime(2026, 12, 1, tzinfo=UTC)
SAMPLE = 0.05


def record(start: datetime, served: Counter[str]) -> ProductionRecord:
    """The library's record of one window: cells under MIN_CELL merged into the model's remainder."""
    small = sum(n for n in served.values() if n < MIN_CELL)
    cells = [ServedCell(model=MODEL, provider=NAMES[MODEL][h], n=n) for h, n in sorted(served.items()) if n >= MIN_CELL]
    cells += [ServedCell(model=MODEL, provider=None, n=small)] if small >= MIN_CELL else []
    return ProductionRecord(schema=SCHEMA, exporter="chat-eu-1", window_start=start, window_end=start + WINDOW,
                            sample_rate=SAMPLE, served=tuple(cells))


def stale_trial(rng: random.Random, daily: int, entries: list[Exclusion]) -> float | None:
    """Minutes from the backend's stop to the first alarming round (None: not within a day)."""
    stop = T0 + timedelta(days=2, minutes=rng.uniform(0, 30 * 48))
    pushed: list[tuple[datetime, ProductionRecord]] = []
    start = T0
    while start < stop + timedelta(days=1):
        # The share of the window after the stop: its replies may go to the suspended host too.
        share = min(1.0, max(0.0, (start + WINDOW - stop) / WINDOW))
        served = _mixed(rng, daily, share)
        pushed.append((start + WINDOW + timedelta(seconds=rng.uniform(5, 180)), record(start, served)))
        start += WINDOW
    at = T0 + timedelta(days=2) - WINDOW
    while at < stop + timedelta(days=1):
        now = at + timedelta(minutes=rng.uniform(0, 15))
        arrived = [r for when, r in pushed if when <= now]
        if now > stop and alarms(route_audit(newest(arrived, now), entries, NAMES)):
            return (now - stop).total_seconds() / 60
        at += WINDOW
    return None


def _mixed(rng: random.Random, daily: int, share: float) -> Counter[str]:
    """One window's sampled replies: those after the stop (`share` of them) may go to any host."""
    out: Counter[str] = Counter()
    for _ in range(_sampled(rng, daily)):
        out[rng.choice(HOSTS if rng.random() < share else HOSTS[1:])] += 1
    return out


def _sampled(rng: random.Random, daily: int) -> int:
    return sum(rng.random() < SAMPLE for _ in range(round(daily / 48)))


def late_week(rng: random.Random, daily: int, lag_max: timedelta) -> tuple[int, int]:
    """(rounds, alarms) over a week where suspensions come and go and the backend applies each change
    up to `lag_max` late."""
    spans: list[tuple[str, datetime, datetime]] = []
    t = T0
    while t < T0 + timedelta(days=7):
        host = rng.choice(HOSTS)
        length = timedelta(hours=rng.uniform(2, 30))
        spans.append((host, t, t + length))
        t += timedelta(hours=rng.uniform(1, 8))
    lag = {i: timedelta(seconds=rng.uniform(0, lag_max.total_seconds())) for i in range(len(spans))}

    def ignored_by_backend(at: datetime) -> set[str]:
        return {h for i, (h, s, e) in enumerate(spans) if s + lag[i] <= at < e + lag[i]}

    records, start = [], T0
    while start < T0 + timedelta(days=7):
        served: Counter[str] = Counter()
        for _ in range(_sampled(rng, daily)):
            at = start + WINDOW * rng.random()
            served[rng.choice([h for h in HOSTS if h not in ignored_by_backend(at)] or HOSTS)] += 1
        records.append((start + WINDOW + timedelta(seconds=rng.uniform(5, 180)), record(start, served)))
        start += WINDOW
    rounds = raised = 0
    at = T0 + WINDOW
    while at < T0 + timedelta(days=7):
        now = at + timedelta(minutes=rng.uniform(0, 15))
        entries = [Exclusion(MODEL, h, SUSPENSION, "", since=s, expires=e) for h, s, e in spans if s <= now]
        arrived = [r for when, r in records if when <= now]
        raised += len(alarms(route_audit(newest(arrived, now), entries, NAMES)))
        rounds += 1
        at += WINDOW
    return rounds, raised


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=400)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    entries = [Exclusion(MODEL, HOSTS[0], SUSPENSION, "failed twice", since=T0 - timedelta(days=3),
                         expires=T0 + timedelta(days=30))]
    lines = []
    for daily in (100_000, 20_000, 5_000):
        delays = [stale_trial(rng, daily, entries) for _ in range(args.trials)]
        seen = sorted(d for d in delays if d is not None)
        p50, p95, worst = ((statistics.median(seen), seen[int(0.95 * (len(seen) - 1))], seen[-1]) if seen
                           else (-1, -1, -1))
        print(f"{daily:>7} replies a day ({daily * SAMPLE / 48 / 9:.1f} sampled per host and window): seen "
              f"{len(seen)}/{len(delays)} within a day" + (f"; delay p50 {p50:.0f} min, p95 {p95:.0f}, max {worst:.0f}"
                                                           if seen else ""))
        lines.append(f"BENCH route_leak daily={daily} trials={len(delays)} seen={len(seen)} "
                     f"p50_min={p50:.1f} p95_min={p95:.1f} max_min={worst:.1f}")
    rounds, raised = late_week(rng, 100_000, timedelta(minutes=25))
    print(f"late but within the grace (up to 25 min), a week of changing suspensions: {raised} alarms in "
          f"{rounds} rounds")
    lines.append(f"BENCH route_leak scenario=late rounds={rounds} alarms={raised}")
    stale_rounds, stale_raised = late_week(rng, 100_000, timedelta(minutes=90))
    print(f"late beyond the grace (up to 90 min): {stale_raised} alarms in {stale_rounds} rounds (true: a stale copy)")
    lines.append(f"BENCH route_leak scenario=late90 rounds={stale_rounds} alarms={stale_raised}")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
