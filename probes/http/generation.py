"""Who served a reply: OpenRouter's `GET /generation?id=` (docs/openrouter-wire.md §12).

A user's report names a reply by its generation id (the completion's `id`, also `X-Generation-Id`);
`canary explain --generation` asks OpenRouter which provider served it (`data.provider_name`). The
answer can lag the reply by a few seconds, and an id another key made is not found: both are said.
"""

from __future__ import annotations

import asyncio
from urllib.parse import quote

from core.errors import UpstreamError
from core.tags import is_provider_name
from core.upstream import Upstream
from probes.http.client import PinnedClient, TransportError
from probes.http.wire import error_of, parse_json

MAX_BYTES = 256 * 1024


async def served_by(client: PinnedClient, generation_id: str) -> str:
    """The display name of the provider that served `generation_id` ("DeepInfra"), or UpstreamError."""
    try:
        status, raw = await client.get_bytes(f"generation?id={quote(generation_id, safe='')}", max_bytes=MAX_BYTES)
    except TransportError as exc:
        raise UpstreamError(f"generation {generation_id[:80]!r}: no answer from {client.settings.base_url} "
                            f"({exc})") from None
    body = client.settings.mask.json(parse_json(raw))
    if status != 200:
        hint = {404: " (not found: an id made with another key, or looked up before OpenRouter stored it; "
                     "try again in a minute)", 401: " (check OPENROUTER_API_KEY)"}.get(status, "")
        detail = error_of(body)[0] if body is not None else "non-JSON body"
        raise UpstreamError(client.settings.scrub(f"generation {generation_id[:80]!r}: HTTP {status}{hint}: {detail}"))
    name = body.get("data", {}).get("provider_name") if isinstance(body, dict) else None
    if not is_provider_name(name):
        raise UpstreamError(f"generation {generation_id[:80]!r}: the answer names no provider "
                            f"(data.provider_name: {ascii(name)[:80]})")
    return name


def lookup(upstream: Upstream, generation_id: str) -> str:
    """`served_by` on its own client (a command's one request)."""
    async def ask() -> str:
        async with PinnedClient(upstream, overall_concurrency=1, per_provider_concurrency=1, deadline_s=30) as client:
            return await served_by(client, generation_id)

    return asyncio.run(ask())
