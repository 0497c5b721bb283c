"""Discovery over real sockets: against the simulator, and against a server that misbehaves."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import pytest

from core.upstream import Upstream
from probes.http.client import PinnedClient
from probes.http.discovery import DiscoveryError, discover
from probes.http.records import Endpoint
from simulator import scenario_from_dict, start_simulator

SECRET = "sk-or-v1-SENTINEL-discovery-99aa"
MODEL = "acme/model-x"


def scenario() -> Any:
    endpoints = [
        {"tag": "zephyr/fp8", "provider_name": "Zephyr",
         "pricing": {"prompt": "0.00000014", "completion": "0.00000028"},
         "supported_parameters": ["max_tokens", "response_format", "structured_outputs"]},
        {"tag": "aurora/bf16", "provider_name": "Aurora", "quantization": "bf16", "max_completion_tokens": 4096},
        {"tag": "gone/fp8", "behaviour": {"available": False}},
    ]
    return scenario_from_dict({"name": "discovery", "models": [{"id": MODEL, "endpoints": endpoints}]})


def run_discover(base_url: str, model: str = MODEL, key: str | None = SECRET) -> list[Endpoint]:
    async def go() -> list[Endpoint]:
        async with PinnedClient(Upstream(base_url=base_url, api_key=key), deadline_s=2) as client:
            return await discover(client, model)

    return asyncio.run(go())


def test_it_lists_the_available_endpoints_sorted_by_tag_with_their_fields() -> None:
    with start_simulator(scenario()) as sim:
        found = run_discover(sim.base_url)
        (request,) = sim.received
    assert [e.provider for e in found] == ["aurora/bf16", "zephyr/fp8"]
    aurora, zephyr = found
    assert (aurora.model, aurora.provider_name, aurora.quantization, aurora.max_completion_tokens) == (
        MODEL, "Aurora", "bf16", 4096)
    assert zephyr.prompt_price == pytest.approx(1.4e-7) and zephyr.completion_price == pytest.approx(2.8e-7)
    assert zephyr.supports("response_format") and not zephyr.supports("temperature")
    assert request.path == "/api/v1/models/acme/model-x/endpoints" and request.method == "GET"


def test_an_unknown_model_is_a_discovery_error_with_the_status() -> None:
    with start_simulator(scenario()) as sim, pytest.raises(DiscoveryError) as info:
        run_discover(sim.base_url, "acme/nope")
    assert info.value.status == 404 and "acme/nope" in str(info.value)


def test_without_a_key_discovery_fails_and_says_to_check_the_key() -> None:
    with start_simulator(scenario()) as sim, pytest.raises(DiscoveryError) as info:
        run_discover(sim.base_url, key=None)
    assert info.value.status == 401 and "OPENROUTER_API_KEY" in str(info.value)


def test_an_unreachable_upstream_is_a_discovery_error_without_the_key() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(DiscoveryError) as info:
        run_discover(f"http://127.0.0.1:{port}/api/v1")
    assert "no answer" in str(info.value) and SECRET not in str(info.value) and SECRET not in repr(info.value)


async def _raw_server(body: bytes, status: int = 200) -> tuple[asyncio.base_events.Server, str]:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 %d X\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\nConnection: close\r\n\r\n%s"
                     % (status, len(body), body))
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/api/v1"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"<html>Bad gateway</html>", "not JSON"),
        (b'{"data": []}', "no data.endpoints"),
        (b'{"data": {"endpoints": []}}', "zero endpoints"),
        (b'{"data": {"endpoints": [{"tag": "a/b\\nc", "provider_name": "A", "supported_parameters": [], '
         b'"pricing": {"prompt": "0", "completion": "0"}}]}}',
         "not a routing slug"),
    ],
    ids=["html", "no-endpoints-list", "zero-endpoints", "newline-tag"],
)
def test_nonsense_over_the_wire_is_a_discovery_error(body: bytes, message: str) -> None:
    async def go() -> None:
        server, url = await _raw_server(body)
        try:
            async with PinnedClient(Upstream(base_url=url, api_key=SECRET), deadline_s=2) as client:
                await discover(client, MODEL)
        finally:
            server.close()

    with pytest.raises(DiscoveryError, match=message) as info:
        asyncio.run(go())
    assert "\n" not in str(info.value)


def _discover_raw(body: bytes, key: str = SECRET, status: int = 200) -> DiscoveryError:
    async def go() -> None:
        server, url = await _raw_server(body, status)
        try:
            async with PinnedClient(Upstream(base_url=url, api_key=key), deadline_s=10) as client:
                await discover(client, MODEL)
        finally:
            server.close()

    with pytest.raises(DiscoveryError) as info:
        asyncio.run(go())
    return info.value


def test_a_listing_over_the_4_mib_cap_is_too_large_not_not_json() -> None:
    # Issue 31: cut at the cap, the listing was reported as "not JSON".
    entry = b'{"tag": "a/fp8", "provider_name": "A", "supported_parameters": [], "pricing": {"prompt": "0"}}, '
    body = b'{"data": {"endpoints": [' + entry * (4 * 1024 * 1024 // len(entry) + 1) + b"]}}"
    error = _discover_raw(body)
    assert "too large" in str(error) and "4 MiB" in str(error) and "not JSON" not in str(error)


KEY73 = "sk-or-v1-" + "5f0e" * 16   # a real key's shape


@pytest.mark.parametrize(("body", "status"), [
    # a rejected entry is quoted cut to 60 characters: the key straddles the cut
    (b'{"data": {"endpoints": [{"tag": "' + b"x" * 20 + KEY73.encode() + b'", "provider_name": "A"}]}}', 200),
    # an error echoing the Authorization header, its message cut at 300
    (b'{"error": {"code": 401, "message": "' + b"." * 260 + b"Authorization: Bearer " + KEY73.encode() + b'"}}', 401),
], ids=["rejected-entry", "error-message"])
def test_no_piece_of_the_key_survives_a_cut_in_a_discovery_error(body: bytes, status: int) -> None:
    error = _discover_raw(body, key=KEY73, status=status)
    said = f"{error} {error.problems}"
    assert "***" in said and not any(KEY73[i: i + 16] in said for i in range(len(KEY73) - 15)), said
