"""Who sees a user-visible defect first, canary or the users? (issue 40)

    .venv/bin/python benchmarks/reports_first.py [--draws 20000] [--seed 5] [--flagged host=round,...]

The fleet benchmark's planted defects (benchmarks/fleet_evidence.py: `planted`, `article`,
`three_defects`) run as real rounds (the simulator, `pytest probes`, `canary judge`, observe mode);
each defective host's first would-suspend round is when canary flagged it (--flagged skips the
rounds and takes them as given). Reports are then simulated, simply:

- the defect starts at a moment drawn uniformly in the half hour before round 1;
- the product sends DAILY replies a day spread evenly over the fleet's endpoints; a reply of the
  defective host is visibly broken with the probability VISIBLE gives (an assumption per defect:
  stray bytes on 95 % of replies are seen in 95 %; a refusal only for some prompts in a few);
- a user reports a visibly broken reply with probability q (1 in 1,000 and 1 in 10,000), so the
  first report comes after an exponential wait, and a second (the confirmation canary schedules on
  two reports: judge/suspension/reports.py) after another;
- canary flagged first when its round came before the first report; by how many half-hour rounds.

Structured output broken (glacier) is planted but not visible in a chat product: left out. Nothing
here is measured from users: q and VISIBLE are the assumptions the figures hang on.

    BENCH reports_first q=0.001 defects=... flagged_first=... lead_rounds_p50=...
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _support import bench_line

DAILY = 100_000
ROUND_MIN = 30.0
# The share of a defective host's production replies a user would see broken (assumed, per host).
VISIBLE = {"cinder/fp8": 0.95, "dune/int4": 1.0, "fjord/fp16": 1.0, "shy/fp8": 0.1, "trunc/fp8": 0.05,
           "seed/fp8": 0.95, "garble/fp8": 0.95, "mixer/fp8": 1.0, "switch/fp8": 1.0}
SCENARIOS = ("planted", "article", "three_defects")


def flagged_rounds(seed: int) -> tuple[dict[str, int], dict[str, int]]:
    """host -> its first opening round, and host -> its fleet's size, from real rounds."""
    from fleet_evidence import OPENING, play, scenarios

    found, sizes = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in SCENARIOS:
            s = scenarios(336)[name]
            played = play(s, Path(tmp), seed, print)
            for n, d in played.decisions:
                if d["action"] in OPENING and d["provider"] in s.planted:
                    found.setdefault(d["provider"], n)
            sizes.update({host: len(s.endpoints) for host in s.planted})
    return found, sizes


def race(rng: random.Random, flagged_round: int | None, per_window: float, visible: float, q: float,
         draws: int) -> tuple[float, float | None, float]:
    """(share flagged before the first report, median lead in rounds when it was, median rounds from the
    defect to the second report)."""
    rate = per_window * visible * q / ROUND_MIN   # reports a minute
    leads, seconds, first = [], [], 0
    for _ in range(draws):
        onset = ROUND_MIN - rng.uniform(0, ROUND_MIN)          # minutes after T0; round n starts at n x 30
        report = onset + rng.expovariate(rate)
        seconds.append((report + rng.expovariate(rate) - onset) / ROUND_MIN)
        if flagged_round is not None and flagged_round * ROUND_MIN < report:
            first += 1
            leads.append((report - flagged_round * ROUND_MIN) / ROUND_MIN)
    return first / draws, statistics.median(leads) if leads else None, statistics.median(seconds)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--draws", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--flagged", default=None, help="host=round,... instead of running the fleet's rounds")
    args = ap.parse_args()
    if args.flagged:
        flagged = {h: int(r) for h, r in (x.split("=") for x in args.flagged.split(","))}
        sizes = {h: 10 for h in flagged}
    else:
        flagged, sizes = flagged_rounds(args.seed)
    rng = random.Random(args.seed)
    for q in (1e-3, 1e-4):
        shares, leads = [], []
        print(f"\nq = {q:g} (a user reports one visibly broken reply in {1 / q:,.0f}), {DAILY:,} replies a day:")
        for host, visible in VISIBLE.items():
            if host not in sizes and host not in flagged:
                continue
            per_window = DAILY / 48 / sizes.get(host, 10)
            share, lead, second = race(rng, flagged.get(host), per_window, visible, q, args.draws)
            shares.append(share)
            if lead is not None:
                leads.append(lead)
            print(f"  {host:<12} visible {visible:>4.0%}, flagged at round {flagged.get(host, 'never')}: canary "
                  f"first {share:6.1%}, by {lead if lead is None else round(lead, 1)} rounds (median); "
                  f"two reports after {second:.1f} rounds (median)")
        mean = sum(shares) / len(shares)
        p50 = statistics.median(leads) if leads else math.nan
        print(f"  => canary flagged first in {mean:.1%} of the draws over {len(shares)} defects; "
              f"median lead {p50:.1f} rounds")
        print(bench_line("reports_first", q=q, defects=len(shares), flagged_first=round(mean, 3),
                         lead_rounds_p50=round(p50, 1)))


if __name__ == "__main__":
    main()
