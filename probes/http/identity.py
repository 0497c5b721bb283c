"""Which upstream answers: OpenRouter, the bundled simulator, or something else (docs/openrouter-wire.md §7).
The address decides nothing: an OpenRouter-compatible proxy on localhost is a real upstream.
"""

from __future__ import annotations

from core.upstream import CUSTOM, OPENROUTER, SIMULATOR, upstream_kind
from core.vocabulary import SIMULATOR_HEADER
from probes.http.client import PinnedClient, TransportError

KEY_PATH = "key"


async def identify(client: PinnedClient) -> str:
    """`openrouter`, `simulator` (it said so) or `custom` (what results.json records as `upstream`)."""
    if upstream_kind(client.settings.base_url) == OPENROUTER:
        return OPENROUTER
    try:
        _, _, headers = await client.get(KEY_PATH, max_bytes=64 * 1024)
    except TransportError:
        return CUSTOM
    return SIMULATOR if headers.get(SIMULATOR_HEADER) else CUSTOM
