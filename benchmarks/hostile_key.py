"""What the key echoed at each cut costs a round (issue 31), and what masking the key costs at all.

    .venv/bin/python benchmarks/hostile_key.py [--requests 20] [--only NAME]

Each of simulator/hostile.py's `echo_at_cut` attacks (the key placed where the client cuts
upstream text: an error message, a quoted malformed event, a moderation category, the
X-Provider-Name note, a tool name in fragments, the 64 K text cap) is served by the bundled
simulator over a real socket, pinned, with a key of a real key's shape (73 characters), beside a
healthy host; the client (probes/http/client.py) reads each reply `--requests` times. Printed per
attack: the median wall time of one request and the client's CPU time per request (the masking
included: every decoded body, every cut, the joined text and fragments), against the healthy host,
and whether any piece of the key (16 characters, any case) survived in the result (`leaked`).

Then core/key_mask.py alone, per call: a typical 300-byte data event, 64 K of prose, 64 K of hex
(a text made of the key's own alphabet), 64 K of `\\u` escapes and 64 K of percent-encoded text
(issue 37: each escape decoded in the normalised copy the key is looked for in), and the final
sweep's bytes of a 4 MiB file.

The last lines are machine-parsable:

    BENCH hostile_key attack=<name> wall_ms=… cpu_ms=… leaked=0|1
    BENCH key_mask input=<name> chars=… ms=…
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.key_mask import KeyMask  # noqa: E402
from core.upstream import Upstream  # noqa: E402
from probes.http.client import PinnedClient  # noqa: E402
from probes.http.discovery import discover  # noqa: E402
from simulator import scenario_from_dict, start_simulator  # noqa: E402
from simulator.hostile import ECHO_INTO  # noqa: E402

MODEL = "deepseek/deepseek-chat-v3-0324"
KEY = "sk-or-v1-" + hashlib.sha256(b"benchmarks/hostile_key.py").hexdigest()
FAST = {"ttft_ms": 0, "tokens_per_second": 1_000_000}
MESSAGES = [{"role": "system", "content": "You are a roleplay partner. Always reply in English."},
            {"role": "user", "content": "*I open the tavern door.* Continue the scene."}]
TOOLS = [{"type": "function", "function": {"name": "roll_dice", "parameters": {
    "type": "object", "properties": {"sides": {"type": "integer"}}, "required": ["sides"]}}}]


def scenario(into: str | None) -> dict[str, object]:
    faults = {"echo_at_cut": {"rate": 1.0, "into": into}} if into else {}
    return {"name": "hostile-key", "keepalive_ms": 50, "models": [{"id": MODEL, "endpoints": [
        {"tag": "host/fp8", "provider_name": "Host", "behaviour": {**FAST, "faults": faults}}]}]}


def leaked(text: str) -> bool:
    lower = text.lower()
    return any(KEY[i: i + 16].lower() in lower for i in range(len(KEY) - 15))


async def attack(into: str | None, requests: int) -> tuple[float, float, bool]:
    """(median wall ms, CPU ms per request, a piece leaked) of `requests` pinned requests."""
    with start_simulator(scenario_from_dict(scenario(into)), seed=3) as sim:
        upstream = Upstream(base_url=sim.base_url, api_key=KEY)
        async with PinnedClient(upstream, deadline_s=30.0) as client:
            endpoint = (await discover(client, MODEL))[0]
            walls, cpu, found = [], 0.0, False
            for _ in range(requests):
                cpu0, wall0 = time.process_time(), time.perf_counter()
                result = await client.chat(endpoint, MESSAGES, max_tokens=120,
                                           tools=TOOLS if into == "tool_name" else None)
                walls.append((time.perf_counter() - wall0) * 1000)
                cpu += time.process_time() - cpu0
                found = found or leaked(json.dumps([str(result)], ensure_ascii=False))
    # process_time counts the simulator's thread too: the healthy row is the baseline to read against.
    return statistics.median(walls), cpu / requests * 1000, found


def mask_costs() -> list[tuple[str, int, float]]:
    mask = KeyMask(KEY)
    event = json.dumps({"id": "gen-1764650000-abcdefghijklmnopqrst", "provider": "Aurora", "model": MODEL,
                        "choices": [{"index": 0, "delta": {"role": "assistant", "content": " word"},
                                     "finish_reason": None}]})
    prose = ("The innkeeper wipes the counter and looks up. " * 1500)[: 64 * 1024]
    hexed = (hashlib.sha256(b"x").hexdigest() * 1100)[: 64 * 1024]
    big = ("The innkeeper wipes the counter and looks up. " * 100_000).encode()[: 4 << 20]
    out = []
    escapes = json.dumps("日本語のテキスト" * 8192)[: 64 * 1024]   # JSON text of CJK, escaped as ASCII
    percent = ("a%20b%2Fc " * 7000)[: 64 * 1024]
    inputs = (("event", event), ("prose-64k", prose), ("hex-64k", hexed), ("escapes-64k", escapes),
              ("percent-64k", percent))
    for name, value in inputs:
        runs = 2000 if name == "event" else 20
        start = time.perf_counter()
        for _ in range(runs):
            mask(value)
        out.append((name, len(value), (time.perf_counter() - start) / runs * 1000))
    start = time.perf_counter()
    mask.in_bytes(big)
    out.append(("file-4mib", len(big), (time.perf_counter() - start) * 1000))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--only", default=None, help="one attack (or 'healthy')")
    args = parser.parse_args()
    names: list[str | None] = [None, *ECHO_INTO]
    if args.only:
        names = [n for n in names if (n or "healthy") == args.only]
    rows = [(n or "healthy", *asyncio.run(attack(n, args.requests))) for n in names]
    print(f"{'attack':<12} {'wall ms':>9} {'cpu ms':>8}  leaked")
    for name, wall, cpu, found in rows:
        print(f"{name:<12} {wall:9.1f} {cpu:8.2f}  {'YES' if found else 'no'}")
    costs = mask_costs()
    print(f"\n{'mask input':<12} {'chars':>9} {'ms':>9}")
    for name, size, ms in costs:
        print(f"{name:<12} {size:9d} {ms:9.3f}")
    for name, wall, cpu, found in rows:
        print(f"BENCH hostile_key attack={name} wall_ms={wall:.1f} cpu_ms={cpu:.2f} leaked={int(found)}")
    for name, size, ms in costs:
        print(f"BENCH key_mask input={name} chars={size} ms={ms:.3f}")


if __name__ == "__main__":
    main()
