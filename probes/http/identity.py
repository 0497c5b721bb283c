"""Which upstream answers: OpenRouter, the bundled simulator, or something else (a proxy, a mirror).

An address says little: an OpenRouter-compatible proxy in front of OpenRouter may listen on
localhost, and its rounds are real. So a round is classified by who answers: the bundled simulator
names itself on every response (`core.vocabulary.SIMULATOR_HEADER`), and one `GET /key` (the
documented "information on the API key associated with the current authentication session";
OpenRouter's OpenAPI description, `/key`) asks, cheaply, before discovery. OpenRouter's own host
is known without asking. No answer at all makes the upstream `custom`: discovery then fails
loudly for it, and a `custom` round is never taken for a simulator one.
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
