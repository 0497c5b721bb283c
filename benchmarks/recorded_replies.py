"""The corpus of real recorded OpenRouter exchanges through every reply check a round runs (issue 28).

    .venv/bin/python scripts/fetch_recordings.py --if-missing   # once: the corpus is not committed
    .venv/bin/python benchmarks/recorded_replies.py

Each recorded chat exchange (tests/data/openrouter-recordings, sources.yaml) is served from a real
socket to the pinned client and judged as a round judges its replies (tests/probes/recorded_replay.py:
stream integrity, limits, billing at the served model's listed price, hidden completion tokens,
reply integrity, decode speed, the tools judge where the request has the tools contract's shape).
Printed: exchanges replayed, replies completed, bills priced and reconciled (usage.cost equal to
the listed price x the reported tokens to a millionth), underbilled notes, replies whose billing
could not be judged and why, decode speeds measured, and failures by check (each one named).

Machine-parsable line:

    BENCH recorded_replies replayed=… completed=… priced=… reconciled=… underbilled=… unpriced=… decode_measured=…
          failures=…
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "probes")]

from recorded_replay import replay  # noqa: E402  (the harness lives beside the tests that use it)
from recorded_server import corpus, missing_reason  # noqa: E402


def main() -> int:
    reason = missing_reason()
    if reason is not None:
        print(f"recorded_replies: {reason}", file=sys.stderr)
        return 2
    exchanges = corpus()
    replays = [replay(it) for it in exchanges if it.status == 200]
    completed = [r for r in replays if r.result.completed]
    priced = [r for r in completed if r.priced and r.billed is not None]
    reconciled = [r for r in priced if r.reconciled]
    underbilled = [r for r in completed if any(n.startswith("billing: cost below") for n in r.notes)]
    unpriced = Counter(r.unpriced_why.split(": $")[0] for r in completed if r.unpriced_why)
    failures = Counter(check for r in completed for check in r.failures)
    decode = [r.decode_tps for r in completed if r.decode_tps is not None]
    print(f"recorded exchanges: {len(exchanges)} ({len(exchanges) - len(replays)} errors, replayed by "
          f"tests/probes/http/test_recorded_traffic.py); 200 replies replayed here: {len(replays)}")
    print(f"completed: {len(completed)}; with a cost and a listed price: {len(priced)}, "
          f"reconciled to a millionth: {len(reconciled)}; underbilled notes: {len(underbilled)}")
    for why, count in sorted(unpriced.items()):
        print(f"  billing not judged ({count}): {why}")
    for r in priced:
        if not r.reconciled and r.billed is not None:
            billed, listed = r.billed.billed, r.billed.listed
            print(f"  not reconciled: {r.it.name} on {r.it.provider()}: ${billed:.8f} billed, ${listed:.8f} listed "
                  f"({billed / listed:.2f} x)" if listed else f"  not reconciled: {r.it.name}: nothing listed")
    print(f"decode speed measured on {len(decode)} replies (the rest too short, reasoning, or not streamed; "
          "the figure is the replay's pace, each stream served over 0.12 s)")
    for r in completed:
        for check, why in r.failures.items():
            print(f"  FAILED {check}: {r.it.name}: {why}")
    print(f"BENCH recorded_replies replayed={len(replays)} completed={len(completed)} priced={len(priced)} "
          f"reconciled={len(reconciled)} underbilled={len(underbilled)} unpriced={sum(unpriced.values())} "
          f"decode_measured={len(decode)} "
          f"failures={','.join(f'{k}:{v}' for k, v in sorted(failures.items())) or 0}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
