"""Rate limits: a 256-endpoint round against a key that answers 429 above N concurrent requests.

    .venv/bin/python benchmarks/rate_limits.py [--endpoints 256] [--limits 16 64] [--deadline 30]

The simulator runs as its own process (`python -m simulator`) with the scenario switch
`rate_limit: {concurrent: N, retry_after: 1}`: a chat request that arrives while N are in flight
is answered 429 with `Retry-After: 1`, as a key near its limit is. Each endpoint gets one
latency-probe-like request (streamed, 32 tokens; first token 0.3-1.5 s, 40-80 tokens/s, fixed
seed) through the real pinned client, in one asyncio loop, as a round sends them. Three ways:

- `fixed`: canary.yaml's overall cap (256), fixed: the cap the round had before adapting;
- `fixed-N`: a fixed cap equal to the limit, the best a fixed cap can do when the limit is known;
- `adaptive`: the same 256, halved on a 429 wave and recovering on answers (probes/http/limiter.py).

Every variant honours Retry-After once within the request's deadline (probes/http/client.py).
Measured: wall_s (first request sent to last result), longest_s (the longest single request,
max of total_s over results: the round's physical floor), ratio = wall_s / longest_s, share_429
(429 answers / chat requests the simulator received), failed (results that were not completed:
the hosts a round would freeze), lowest_cap (the adaptive cap's lowest point). Machine lines:

    BENCH rate_limits endpoints=256 limit=16 mode=adaptive wall_s=... longest_s=... ratio=... share_429=... failed=...
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _support import MODEL, bench_line, endpoint, scenario, write_yaml

from core.upstream import Upstream
from probes.http.client import PinnedClient
from probes.http.discovery import discover
from simulator.process import simulator_process

KEY = "sk-canary-bench-rate-limits"
MESSAGES = [{"role": "user", "content": "Continue the scene: the innkeeper greets the traveller."}]
OVERALL_CAP = 256  # canary.yaml's concurrency.overall


def fleet(count: int, seed: int = 11) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    return [endpoint(f"host{i:03d}/fp8", ttft_ms=round(rng.uniform(300, 1500)),
                     tokens_per_second=round(rng.uniform(40, 80), 1)) for i in range(count)]


async def one_round(base_url: str, *, cap: int, adaptive: bool, deadline: float) -> dict[str, Any]:
    async with PinnedClient(Upstream(base_url=base_url, api_key=KEY), overall_concurrency=cap,
                            per_provider_concurrency=2, deadline_s=deadline, adaptive=adaptive) as client:
        endpoints = await discover(client, MODEL)
        started = time.monotonic()
        results = await asyncio.gather(*(client.chat(e, MESSAGES, max_tokens=32) for e in endpoints))
        wall = time.monotonic() - started
        lowest = client._overall.lowest   # the lowest cap the 429s brought the round down to
    return {"wall_s": wall, "longest_s": max(r.total_s for r in results),
            "requests": sum(r.requests for r in results), "failed": sum(not r.completed for r in results),
            "waited": sum(r.waited_s is not None for r in results), "lowest_cap": lowest}


def rate_limited(base_url: str) -> int:
    control = base_url.removesuffix("/api/v1") + "/_sim/control"
    with urllib.request.urlopen(control, timeout=5) as response:
        return int(json.load(response)["rate_limited"])


def measure(count: int, limit: int, deadline: float, work: Path) -> list[dict[str, Any]]:
    doc = scenario("rate-limits", fleet(count))
    doc["rate_limit"] = {"concurrent": limit, "retry_after": 1}
    file = write_yaml(work / f"rate-limits-{count}-{limit}.yaml", doc)
    rows = []
    for mode, cap, adaptive in (("fixed", OVERALL_CAP, False), (f"fixed-{limit}", limit, False),
                                ("adaptive", OVERALL_CAP, True)):
        with simulator_process(file, seed=5) as sim:
            row = asyncio.run(one_round(sim.base_url, cap=cap, adaptive=adaptive, deadline=deadline))
            row["rate_limited"] = rate_limited(sim.base_url)
        row.update(mode=mode, limit=limit, endpoints=count, ratio=row["wall_s"] / row["longest_s"],
                   share_429=row["rate_limited"] / max(1, row["requests"]))
        rows.append(row)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--endpoints", type=int, default=256)
    parser.add_argument("--limits", type=int, nargs="+", default=[16, 64])
    parser.add_argument("--deadline", type=float, default=30.0,
                        help="request deadline (probe.request_deadline_seconds)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows = [row for limit in args.limits for row in measure(args.endpoints, limit, args.deadline, Path(tmp))]
    print(f"{'endpoints':>9} {'limit':>5} {'mode':>10} {'wall s':>7} {'longest s':>9} {'ratio':>6} "
          f"{'429 share':>9} {'requests':>8} {'waited':>6} {'failed':>6} {'lowest cap':>10}")
    for r in rows:
        print(f"{r['endpoints']:>9} {r['limit']:>5} {r['mode']:>10} {r['wall_s']:>7.2f} {r['longest_s']:>9.2f} "
              f"{r['ratio']:>6.2f} {r['share_429']:>9.3f} {r['requests']:>8} {r['waited']:>6} {r['failed']:>6} "
              f"{r['lowest_cap']:>10}")
    for r in rows:
        print(bench_line("rate_limits", endpoints=r["endpoints"], limit=r["limit"], mode=r["mode"],
                         wall_s=r["wall_s"], longest_s=r["longest_s"], ratio=r["ratio"], share_429=r["share_429"],
                         failed=r["failed"], lowest_cap=r["lowest_cap"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
