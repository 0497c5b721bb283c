"""Item 12 of issue 19: a round is classified by who answers, not by the address.

The bundled simulator names itself on every response; an OpenRouter-compatible proxy on
localhost (here: a scripted server that answers like OpenRouter, without the header) is a
`custom` upstream, whose rounds the judge does not refuse as simulator rounds.
"""

from __future__ import annotations

import asyncio

from core.upstream import Upstream
from core.vocabulary import SIMULATOR_HEADER
from probes.http.client import PinnedClient
from probes.http.identity import identify
from simulator import start_simulator


async def _ask(base_url: str) -> str:
    async with PinnedClient(Upstream(base_url=base_url, api_key="sk-or-v1-identity-0123456789"),
                            deadline_s=2.0) as client:
        return await identify(client)


def ask(base_url: str) -> str:
    return asyncio.run(_ask(base_url))


async def _ask_a_proxy(answer: bytes) -> tuple[str, str]:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(answer)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    base_url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/api/v1"
    try:
        return base_url, await _ask(base_url)
    finally:
        server.close()


def test_the_bundled_simulator_says_it_is_the_simulator_on_every_response() -> None:
    with start_simulator() as sim:
        assert ask(sim.base_url) == "simulator"


def test_a_proxy_on_localhost_that_answers_like_openrouter_is_a_custom_upstream() -> None:
    body = b'{"data": {"label": "sk-or-v1-abc...xyz", "limit": null, "usage": 1.5}}'
    answer = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
    base_url, kind = asyncio.run(_ask_a_proxy(answer))
    assert base_url.startswith("http://127.0.0.1:") and kind == "custom"


def test_openrouter_itself_is_known_without_asking() -> None:
    assert ask("https://openrouter.ai/api/v1") == "openrouter"


def test_nothing_listening_is_a_custom_upstream_not_the_simulator() -> None:
    assert ask("http://127.0.0.1:9/api/v1") == "custom"


def test_the_header_name_is_the_one_the_simulator_sends() -> None:
    import httpx
    with start_simulator() as sim:
        response = httpx.get(f"{sim.base_url}/models")
    assert response.status_code == 401 and response.headers[SIMULATOR_HEADER]
