"""A chat backend's production traffic against the bundled simulator, sampled into records and judged (issue 39).

    .venv/bin/python examples/production_demo.py reports/production

No key: it starts the bundled simulator (the default scenario, whose Aurora garbles only long
prompts, which the probes never send), and plays a small chat backend: conversations in the
product's 17 languages, some with a long character card, three streamed turns each, every request
UNPINNED (no `provider`: OpenRouter's, and the simulator's, price-weighted balancing picks the
host). The backend samples its replies with the library (provider_ignore/production.py) and writes
the records of the last six 30-minute windows, the last ending now, to DIR/<exporter>/, where
`canary judge --production DIR` reads them (docs/production.md). Then two rounds probe the same
simulator, pinned, and are judged with those records and `rules.production: observe`, in a
temporary folder (never state/): the first, half an hour ago, flags Aurora and schedules a
confirmation; the second runs Aurora's language case three times, which passes (no probe sends a
long prompt), so production evidence alone suspends nothing.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import threading
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import yaml

from canary.round.judging import SIMULATOR_STATE_DIR, JudgeRequest, run_judge
from canary.round.probing import ProbeOptions, run_probe
from core.config import load_config
from core.production import CheckOutcome, ProductionRecord, record_json
from core.times import parse_time, stamp
from core.vocabulary import LANGUAGE_NAMES, LANGUAGES
from judge.suspension.decisions import Action, RoundDecisions
from provider_ignore.production import WINDOW, Exporter, Reply, window_start
from provider_ignore.push import record_path
from simulator.process import SIMULATOR_KEY, simulator_process

MODEL = "deepseek/deepseek-chat-v3-0324"
CARD = "Mara keeps the lantern inn at the pass; she is wary of strangers and remembers every debt. "
LONG_CARD = CARD * 70   # ~6,000 characters: a rich character card, longer than any probe's prompt
MAX_TOKENS = 80
CONCURRENCY = 128   # conversations at once (one host answers its first token after 11 s)
TURNS = ("*I push the door open and shake off the snow.*", "*I ask for a room and a hot meal.*",
         "*I lower my voice.* Have you seen a courier pass this week?")
PRODUCTION = (Action.CONFIRM, Action.CONFIRMATION, Action.SUSPEND, Action.WOULD_SUSPEND)


def chat(client: httpx.Client, base_url: str, messages: list[dict[str, str]]) -> Reply:
    """One unpinned, streamed request: its chunks read as the backend's library reads them."""
    body = {"model": MODEL, "messages": messages, "max_tokens": MAX_TOKENS, "stream": True}
    chunks: list[dict[str, Any]] = []
    with client.stream("POST", f"{base_url}/chat/completions", json=body) as response:
        for line in response.iter_lines():
            if line.startswith("data: ") and line != "data: [DONE]":
                chunks.append(json.loads(line[len("data: "):]))
    return Reply.from_chunks(chunks, model=MODEL, max_tokens=MAX_TOKENS)


def traffic(out: Path, *, end: datetime, windows: int, conversations: int, long_share: float,
            sample_rate: float) -> list[ProductionRecord]:
    """`windows` half hours of the backend's traffic ending at `end`, sampled; their records, written to `out`."""
    exporter = Exporter("demo-backend", sample_rate=sample_rate, check_language=True)

    clients: list[httpx.Client] = []
    local = threading.local()

    def own_client() -> httpx.Client:
        """This thread's client: one shared pool across 128 threads lost sockets under load (EBADF)."""
        if not hasattr(local, "client"):
            local.client = httpx.Client(headers={"Authorization": f"Bearer {SIMULATOR_KEY}"}, timeout=60)
            clients.append(local.client)
        return local.client

    def conversation(base_url: str, window: int, i: int) -> None:
        client = own_client()
        language = LANGUAGES[i % len(LANGUAGES)]   # the user's locale: what the product expects
        card = LONG_CARD if (i * 37 + window) % 100 < long_share * 100 else CARD
        messages = [{"role": "system", "content": f"{card}Always reply in {LANGUAGE_NAMES[language]}."}]
        for turn in TURNS:
            messages.append({"role": "user", "content": turn})
            reply = chat(client, base_url, messages)
            exporter.observe(f"{window}-{i}", reply, now=end - (windows - window) * WINDOW, language=language)
            messages.append({"role": "assistant", "content": reply.text})

    with simulator_process() as sim, ThreadPoolExecutor(CONCURRENCY) as pool:
        jobs = [pool.submit(conversation, sim.base_url, w, i) for w in range(windows) for i in range(conversations)]
        try:
            for job in jobs:
                job.result()
        finally:
            for client in clients:
                client.close()
    records = exporter.records(now=end)
    for record in records:
        path = out / record_path(record).removeprefix("production/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(record_json(record))
    return records


def rounds(records: Sequence[ProductionRecord], end: datetime, folder: Path) -> list[RoundDecisions]:
    """Two rounds against the bundled simulator, half an hour apart, the second at `end`, each judged with
    the records of its time (rules.production observe): the judge's record of each."""
    state = folder / "reports" / SIMULATOR_STATE_DIR / "state.json"
    config_path = folder / "canary.yaml"
    config_path.write_text(yaml.safe_dump({
        "mode": "observe", "models": [MODEL], "rules": {"production": "observe"},
        "paths": {"reports": str(folder / "reports"), "state": str(state), "audit": str(state.parent / "audit.jsonl"),
                  "history": str(folder / "history")}}), encoding="utf-8")
    config, decided = load_config(str(config_path)), []
    for n, at in enumerate((end - WINDOW, end), start=1):
        probed = run_probe(ProbeOptions(config_path=str(config_path), simulator=True, seed=n, round_number=n,
                                        state=state, virtual_time=stamp(at), pytest_args=("-qq",)),
                           echo=lambda _: None)
        judged = run_judge(JudgeRequest(probed.results_path, config, at + timedelta(minutes=5), send=False,
                                        production=tuple(records)), echo=lambda _: None)
        decided.append(judged.decisions)
    return decided


def main(argv: Sequence[str] | None = None) -> list[RoundDecisions]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path, help="where the records go (DIR/<exporter>/<window>.json)")
    parser.add_argument("--windows", type=int, default=6, help="30-minute windows of traffic, the last ending now")
    parser.add_argument("--conversations", type=int, default=68, help="per window (default: 4 a language)")
    parser.add_argument("--long-share", type=float, default=0.4, help="the share of conversations with a long card")
    parser.add_argument("--sample-rate", type=float, default=1.0)
    parser.add_argument("--now", type=lambda v: parse_time(v, "--now"), default=None,
                        help="the time the traffic ends (default: now)")
    args = parser.parse_args(argv)
    end = window_start(args.now or datetime.now(UTC))
    records = traffic(args.out, end=end, windows=args.windows, conversations=args.conversations,
                      long_share=args.long_share, sample_rate=args.sample_rate)
    print(f"wrote {len(records)} records to {args.out}/demo-backend/ (canary judge RESULTS.json --production "
          f"{args.out} reads them); what they say per host:")
    failed, served = Counter[tuple[str, str]](), Counter[str]()
    for record in records:
        for cell in record.served:
            served[str(cell.provider)] += cell.n
        for count in record.counts:
            failed[(str(count.provider), count.check)] += count.n if count.outcome is CheckOutcome.FAIL else 0
    for provider, n in served.most_common():
        checks = ", ".join(f"{check} {k}" for (p, check), k in sorted(failed.items()) if p == provider and k)
        print(f"  {provider:10} {n:4} sampled replies; failed: {checks or 'none'}")
    with tempfile.TemporaryDirectory(prefix="production-demo-") as folder:
        decided = rounds(records, end, Path(folder))
    for n, doc in enumerate(decided, start=1):
        print(f"round {n} ({stamp(doc.now)}, rules.production observe), production and suspension decisions:")
        for d in (d for d in doc.decisions if d.action in PRODUCTION):
            print(f"  {d.action.symbol} {d.action.label}: {d.provider}: {d.reason}")
            print("".join(f"      {card.text}\n" for card in d.card[:1]), end="")
    return decided


if __name__ == "__main__":
    main()
