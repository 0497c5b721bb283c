"""The one retry: a request lost before the first response byte is sent again on a fresh connection.

A raw asyncio server on 127.0.0.1 scripts what happens to each request it reads (in arrival
order, over however many connections): answer it (keeping the connection alive), close the
connection without a byte (FIN), reset it (RST), or send a few bytes and then reset. Real
sockets and httpx's real HTTP/1.1 parsing throughout: the client cannot tell this server from
a real one whose keep-alive connection went stale or whose accept queue overflowed.
"""

from __future__ import annotations

import asyncio
import json
import socket
import struct
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from core.upstream import Upstream
from probes.http.client import PinnedClient
from probes.http.records import ChatResult, Classification, Endpoint, ErrorKind

SECRET = "sk-or-v1-SENTINEL-retry-77e1c0"
ENDPOINT = Endpoint("acme/model-x", "aurora/fp8", "Aurora", "fp8", ("max_tokens",), 1e-7, 2e-7, 8192, 512, 0)
MESSAGES = [{"role": "user", "content": "hi"}]

ANSWER, ANSWER_JSON, CLOSE, RESET = "answer", "answer-json", "close", "reset"


def sse(payload: dict[str, Any] | str) -> bytes:
    return b"data: " + (payload if isinstance(payload, str) else json.dumps(payload)).encode() + b"\n\n"


def _chunk(content: str, finish: str | None = None) -> bytes:
    return sse({"id": "gen-1", "provider": "Aurora", "model": "acme/model-x", "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": {"role": "assistant", "content": content},
                             "finish_reason": finish, "native_finish_reason": finish}],
                **({"usage": {"prompt_tokens": 3, "completion_tokens": 2, "cost": 0.0001}} if finish else {})})


BODY = b": OPENROUTER PROCESSING\n\n" + _chunk("Hello") + _chunk(" there", "stop") + sse("[DONE]")
# Complete responses with a length, so the connection can stay alive for the next request.
ANSWERED = (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: %d\r\n\r\n" % len(BODY)) + BODY
JSON_BODY = json.dumps({"id": "gen-2", "object": "chat.completion", "provider": "Aurora", "model": "acme/model-x",
                        "system_fingerprint": None, "choices": [{"index": 0, "finish_reason": "stop",
                        "message": {"role": "assistant", "content": "Hello"}}]}).encode()
ANSWERED_JSON = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
                 % len(JSON_BODY)) + JSON_BODY


@dataclass
class Scripted:
    """What the server did: one entry per request read, and how many connections it accepted."""

    steps: list[Any]
    connections: int = 0
    requests: list[int] = field(default_factory=list)   # the connection number each request came on

    def step(self) -> Any:
        index = len(self.requests) - 1
        return self.steps[index] if index < len(self.steps) else ANSWER


def _reset(writer: asyncio.StreamWriter) -> None:
    sock = writer.get_extra_info("socket")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close with RST
    writer.transport.abort()


async def _read_request(reader: asyncio.StreamReader) -> bool:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
        return False  # the client closed its idle connection (or the test is over)
    length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                   if line.lower().startswith(b"content-length")), 0)
    await reader.readexactly(length)
    return True


async def serve(steps: list[Any], use: Callable[[str], Awaitable[ChatResult]]) -> tuple[ChatResult, Scripted]:
    script = Scripted(steps)

    writers: list[asyncio.StreamWriter] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writers.append(writer)
        script.connections += 1
        number = script.connections
        try:
            while await _read_request(reader):
                script.requests.append(number)
                step = script.step()
                if step == CLOSE:
                    writer.close()
                    return
                if step == RESET:
                    _reset(writer)
                    return
                if isinstance(step, bytes):  # a few bytes of an answer, then a reset
                    writer.write(step)
                    await writer.drain()
                    await asyncio.sleep(0.05)
                    _reset(writer)
                    return
                writer.write(ANSWERED_JSON if step == ANSWER_JSON else ANSWERED)
                await writer.drain()
        except ConnectionError:
            pass

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        return await use(f"http://127.0.0.1:{port}/api/v1"), script
    finally:
        server.close()
        for writer in writers:  # every connection closed while the loop runs: nothing left for the collector
            writer.close()
        await asyncio.sleep(0)


def chat_n(steps: list[Any], streams: tuple[bool, ...] = (True,)) -> tuple[list[ChatResult], Scripted]:
    """Chats in a row through one client (so its pool can reuse a kept-alive connection)."""
    async def use(base_url: str) -> list[ChatResult]:  # type: ignore[return]
        async with PinnedClient(Upstream(base_url=base_url, api_key=SECRET), deadline_s=3.0) as client:
            return [await client.chat(ENDPOINT, MESSAGES, max_tokens=50, stream=s) for s in streams]

    results, script = asyncio.run(serve(steps, use))  # type: ignore[arg-type]
    for result in results:  # type: ignore[attr-defined]
        assert SECRET not in repr(result)
    return results, script  # type: ignore[return-value]


def chat(steps: list[Any]) -> tuple[ChatResult, Scripted]:
    (result,), script = chat_n(steps)
    return result, script


def test_a_connection_closed_before_any_byte_is_retried_once_on_a_fresh_connection() -> None:
    result, script = chat([CLOSE, ANSWER])
    assert result.classification is Classification.COMPLETED and result.text == "Hello there"
    assert result.requests == 2 and script.requests == [1, 2]  # the retry came on a new connection
    assert result.retried_after is not None and "RemoteProtocolError" in result.retried_after


def test_a_connection_reset_before_any_byte_is_retried_once() -> None:
    result, script = chat([RESET, ANSWER])
    assert result.completed and result.requests == 2 and script.requests == [1, 2]
    assert result.retried_after is not None


def test_a_stale_keep_alive_connection_is_retried_on_a_fresh_one() -> None:
    # The first chat (read to its end) leaves its connection in the pool; the server then drops
    # it while reading the second request (the race a real idle timeout loses). The retry must
    # come on a new connection.
    (first, second), script = chat_n([ANSWER_JSON, CLOSE, ANSWER], streams=(False, True))
    assert first.completed and first.requests == 1
    assert second.completed and second.requests == 2
    assert script.requests == [1, 1, 2]


def test_a_request_lost_twice_is_a_transport_error_that_counts_both_requests() -> None:
    result, script = chat([RESET, RESET, ANSWER])
    assert result.classification is Classification.TRANSPORT_ERROR and result.requests == 2
    assert len(script.requests) == 2  # one retry, never two
    assert result.error_message is not None and "retried once on a fresh connection" in result.error_message


def test_a_partial_status_line_is_the_host_answering_and_is_never_retried() -> None:
    result, script = chat([b"HTTP/1.1 20", ANSWER])
    assert result.classification is Classification.TRANSPORT_ERROR and result.requests == 1
    assert len(script.requests) == 1 and result.retried_after is None


def test_a_stream_cut_after_the_headers_is_never_retried() -> None:
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
    event = _chunk("Hel")
    result, script = chat([head + b"%x\r\n%s\r\n" % (len(event), event), ANSWER])
    assert result.classification is Classification.TRANSPORT_ERROR and result.error_kind is ErrorKind.STREAM_CUT
    assert result.text == "Hel" and result.requests == 1 and len(script.requests) == 1


def test_an_error_status_is_never_retried() -> None:
    body = b'{"error":{"code":502,"message":"Provider returned error"}}'
    status = b"HTTP/1.1 502 Bad Gateway\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (
        len(body), body)
    result, script = chat([status, ANSWER])
    assert result.error_kind is ErrorKind.HTTP_5XX and result.requests == 1 and len(script.requests) == 1


def test_a_refused_connection_is_retried_once_then_reported() -> None:
    with socket.socket() as placeholder:  # a port nobody listens on
        placeholder.bind(("127.0.0.1", 0))
        port = placeholder.getsockname()[1]

    async def use() -> ChatResult:
        settings = Upstream(base_url=f"http://127.0.0.1:{port}/api/v1", api_key=SECRET)
        async with PinnedClient(settings, deadline_s=3.0) as client:
            return await client.chat(ENDPOINT, MESSAGES, max_tokens=50)

    result = asyncio.run(use())
    assert (result.classification, result.error_kind) == (Classification.TRANSPORT_ERROR, ErrorKind.CONNECT_ERROR)
    assert result.requests == 2 and result.retried_after is not None and "ConnectError" in result.retried_after


def test_the_retry_never_reuses_another_kept_alive_connection() -> None:
    # Two idle connections in the pool (two concurrent chats answered in full). The third request
    # is dropped; the other idle connection may be just as stale, so the retry opens a new one.
    async def use(base_url: str) -> list[ChatResult]:  # type: ignore[return]
        async with PinnedClient(Upstream(base_url=base_url, api_key=SECRET), deadline_s=3.0,
                                per_provider_concurrency=2) as client:
            pair = await asyncio.gather(*(client.chat(ENDPOINT, MESSAGES, max_tokens=50, stream=False)
                                          for _ in range(2)))
            return [*pair, await client.chat(ENDPOINT, MESSAGES, max_tokens=50)]

    results, script = asyncio.run(serve([ANSWER_JSON, ANSWER_JSON, CLOSE, ANSWER], use))  # type: ignore[arg-type]
    assert [r.requests for r in results] == [1, 1, 2]  # type: ignore[attr-defined]
    assert script.connections == 3 and script.requests[2] in (1, 2) and script.requests[3] == 3
