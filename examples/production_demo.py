"""A chat backend's production traffic against the bundled simulator, sampled into records (issue 39, item 5).

    .venv/bin/python examples/production_demo.py reports/production

No key: it starts the bundled simulator (the default scenario, whose Aurora garbles only long
prompts, which the probes never send), and plays a small chat backend: conversations in the
product's 17 languages, some with a long character card, each a few turns, every request UNPINNED
(no `provider`: OpenRouter's, and the simulator's, price-weighted balancing picks the host). The
backend samples its replies with the library (provider_ignore/production.py) and writes the
records of the 30-minute windows ending now (two by default) to DIR/<exporter>/, where `canary judge --production
DIR` reads them (docs/production.md). It prints, per host, what the records say.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from core.production import CheckOutcome, record_json
from core.vocabulary import LANGUAGE_NAMES, LANGUAGES
from provider_ignore.production import WINDOW, Exporter, Reply, window_start
from provider_ignore.push import record_path
from simulator.process import SIMULATOR_KEY, simulator_process

MODEL = "deepseek/deepseek-chat-v3-0324"
CARD = "Mara keeps the lantern inn at the pass; she is wary of strangers and remembers every debt. "
LONG_CARD = CARD * 70   # ~6,000 characters: a rich character card, longer than any probe's prompt
MAX_TOKENS = 160
CONCURRENCY = 32   # conversations at once (one host answers its first token after 11 s)
TURNS = ("*I push the door open and shake off the snow.*", "*I ask for a room and a hot meal.*",
         "*I lower my voice.* Have you seen a courier pass this week?")


def chat(client: httpx.Client, base_url: str, messages: list[dict[str, str]], stream: bool) -> Reply:
    """One unpinned request: a non-streamed body, or a stream's chunks."""
    body = {"model": MODEL, "messages": messages, "max_tokens": MAX_TOKENS, "stream": stream}
    if not stream:
        return Reply.from_body(client.post(f"{base_url}/chat/completions", json=body).json(), model=MODEL,
                               max_tokens=MAX_TOKENS)
    chunks: list[dict[str, Any]] = []
    with client.stream("POST", f"{base_url}/chat/completions", json=body) as response:
        for line in response.iter_lines():
            if line.startswith("data: ") and line != "data: [DONE]":
                chunks.append(json.loads(line[len("data: "):]))
    return Reply.from_chunks(chunks, model=MODEL, max_tokens=MAX_TOKENS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path, help="where the records go (DIR/<exporter>/<window>.json)")
    parser.add_argument("--windows", type=int, default=2, help="30-minute windows of traffic, the last ending now")
    parser.add_argument("--conversations", type=int, default=204, help="per window (default: 12 a language)")
    parser.add_argument("--long-share", type=float, default=0.4, help="the share of conversations with a long card")
    parser.add_argument("--sample-rate", type=float, default=1.0)
    args = parser.parse_args()
    now = window_start(datetime.now(UTC))
    exporter = Exporter("demo-backend", sample_rate=args.sample_rate, check_language=True)

    def conversation(client: httpx.Client, base_url: str, window: int, i: int) -> None:
        language = LANGUAGES[i % len(LANGUAGES)]   # the user's locale: what the product expects
        card = LONG_CARD if (i * 37 + window) % 100 < args.long_share * 100 else CARD
        messages = [{"role": "system", "content": f"{card}Always reply in {LANGUAGE_NAMES[language]}."}]
        for turn in TURNS[: 1 + i % len(TURNS)]:
            messages.append({"role": "user", "content": turn})
            reply = chat(client, base_url, messages, stream=i % 2 == 0)
            exporter.observe(f"{window}-{i}", reply, now=now - (args.windows - window) * WINDOW, language=language)
            messages.append({"role": "assistant", "content": reply.text})

    with simulator_process() as sim, httpx.Client(headers={"Authorization": f"Bearer {SIMULATOR_KEY}"},
                                                  timeout=60) as client, ThreadPoolExecutor(CONCURRENCY) as pool:
        jobs = [pool.submit(conversation, client, sim.base_url, w, i)
                for w in range(args.windows) for i in range(args.conversations)]
        for job in jobs:
            job.result()
    records = exporter.records(now=now)
    for record in records:
        path = args.out / record_path(record).removeprefix("production/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(record_json(record))
        print(f"wrote {path} ({path.stat().st_size} bytes)")
    failed, served = Counter[tuple[str, str]](), Counter[str]()
    for record in records:
        for cell in record.served:
            served[str(cell.provider)] += cell.n
        for count in record.counts:
            failed[(str(count.provider), count.check)] += count.n if count.outcome is CheckOutcome.FAIL else 0
    for provider, n in served.most_common():
        checks = ", ".join(f"{check} {k}" for (p, check), k in sorted(failed.items()) if p == provider and k)
        print(f"  {provider:10} {n:4} sampled replies; failed: {checks or 'none'}")
    print(f"judge a round with them: canary judge RESULTS.json --production {args.out}")


if __name__ == "__main__":
    main()
