"""`canary discover [--model M] [--ping]`: list a model's endpoints; optionally ping each, pinned.

Without OPENROUTER_API_KEY and OPENROUTER_BASE_URL it runs against the bundled simulator (the
same default as a round), so it always shows something real: real HTTP, real SSE, real timing.
Exit codes: 0 all good; 1 a discovery failed; 3 the upstream refused our key (AUTH_ERROR).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence
from contextlib import ExitStack

import click

from canary.cli.commands._options import Invocation, config_option, pass_invocation
from core.upstream import Upstream, resolve_upstream
from probes.http.client import PinnedClient
from probes.http.discovery import DiscoveryError, discover
from probes.http.records import ChatResult, Classification, Endpoint
from simulator.process import SIMULATOR_KEY, simulator_process

PING_MESSAGES = ({"role": "user", "content": "Say hello to a traveller arriving at the inn, in one short sentence."},)


@click.command("discover",
               short_help="list the endpoints of the configured models (and ping each, pinned)")
@config_option
@click.option("--model", "models", multiple=True, help="model id (repeatable; default: canary.yaml models)")
@click.option("--ping", is_flag=True, help="send one pinned streamed request per endpoint")
@click.option("--max-tokens", type=int, default=64, help="max_tokens of each ping (default 64)")
@click.option("--deadline", type=float, default=None, help="per-request deadline in seconds (default: canary.yaml)")
@pass_invocation
def discover_command(invocation: Invocation, models: tuple[str, ...], ping: bool, max_tokens: int,
                     deadline: float | None) -> int:
    """List a model's endpoints; optionally ping each, pinned (exit 1: a discovery failed; 3: key refused)."""
    config = invocation.config()
    models = models or config.models
    if not models:
        print("canary discover: no model given and canary.yaml lists none (use --model author/slug)", file=sys.stderr)
        return 2
    deadline = deadline or config.probe.request_deadline_seconds
    with ExitStack() as stack:
        settings = resolve_upstream()
        if settings is None:
            # The simulator wants a key like OpenRouter does (401 without one); any value will do.
            settings = Upstream(base_url=stack.enter_context(simulator_process()).base_url, api_key=SIMULATOR_KEY)
            print(f"canary discover: no OPENROUTER_API_KEY; using the bundled simulator at {settings.base_url}",
                  file=sys.stderr)
        client = PinnedClient(settings, overall_concurrency=config.concurrency.overall,
                              per_provider_concurrency=config.concurrency.per_provider, deadline_s=deadline)
        return asyncio.run(_main(client, models, ping=ping, max_tokens=max_tokens))


async def _main(client: PinnedClient, models: Sequence[str], *, ping: bool, max_tokens: int) -> int:
    status = 0
    async with client:
        for model in models:
            try:
                endpoints = await discover(client, model)
            except DiscoveryError as exc:
                if not exc.endpoints:
                    print(f"\n{model}: DISCOVERY FAILED: {exc}")
                    status = 3 if exc.status in (401, 402, 403) else max(status, 1)
                    continue
                # Unusable entries are dropped and reported; the round probes the rest.
                endpoints = list(exc.endpoints)
                print(f"\n{model}: dropped {len(exc.problems)} listing entries: {'; '.join(exc.problems[:5])}")
            print(f"\n{model}: {len(endpoints)} endpoints")
            _print_endpoints(endpoints)
            if ping:
                pings = (client.chat(e, PING_MESSAGES, max_tokens=max_tokens) for e in endpoints)
                results = await asyncio.gather(*pings)
                _print_pings(results)
                if any(r.classification is Classification.AUTH_ERROR for r in results):
                    status = 3
    return status


def _print_endpoints(endpoints: Sequence[Endpoint]) -> None:
    rows = [("tag", "provider", "quant", "$/M in", "$/M out", "context", "status", "params")]
    for e in endpoints:
        rows.append((e.provider, _clean(e.provider_name), e.quantization or "-", f"{e.prompt_price * 1e6:.3f}",
                     f"{e.completion_price * 1e6:.3f}", str(e.context_length or "-"), str(e.status),
                     str(len(e.supported_parameters))))
    _table(rows)


def _print_pings(results: Sequence[ChatResult]) -> None:
    rows = [("tag", "classification", "ttft", "total", "finish", "served by", "chars", "error")]
    for r in results:
        ttft = f"{r.ttft_s:.2f}s" if r.ttft_s is not None else "-"
        error = f"{r.error_kind}: {_clean(r.error_message or '')[:70]}" if r.error_kind else ""
        rows.append((r.provider, str(r.classification), ttft, f"{r.total_s:.2f}s", r.finish_reason or "-",
                     _clean(r.served_by or "-"), str(len(r.text)), error))
    print()
    _table(rows)


def _table(rows: Sequence[Sequence[str]]) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=False)).rstrip())


def _clean(text: str) -> str:
    """Upstream strings go to a terminal: escape control characters instead of printing them."""
    return text if text.isprintable() else repr(text)[1:-1]
