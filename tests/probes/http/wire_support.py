"""What the scripted-socket tests share: a server writing exact response bytes (and pauses) to the real client."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

from core.upstream import Upstream
from probes.http.client import PinnedClient
from probes.http.records import ChatResult, Endpoint

SECRET = "sk-or-v1-SENTINEL-wire-0123456789"
ENDPOINT = Endpoint("acme/model-x", "aurora/fp8", "Aurora", "fp8", ("max_tokens",), 1e-7, 2e-7, 8192, 512, 0)
HANG = object()
Script = list[Any]  # bytes to write, a float to pause, HANG to stop writing and keep the socket open


def sse(payload: dict[str, Any] | str) -> bytes:
    return b"data: " + (payload if isinstance(payload, str) else json.dumps(payload)).encode() + b"\n\n"


def chunk(content: str | None = "", finish: str | None = None, provider: str = "Aurora", **delta: Any) -> bytes:
    d = {"role": "assistant", **({"content": content} if content is not None else {}), **delta}
    return sse({"id": "gen-1", "provider": provider, "model": "acme/model-x-2026", "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": d, "finish_reason": finish, "native_finish_reason": finish}]})


def head(status: int = 200, ctype: str = "text/event-stream", extra: str = "") -> bytes:
    # No Content-Length: the body ends when the server closes, like a streamed response.
    return f"HTTP/1.1 {status} X\r\nContent-Type: {ctype}\r\nConnection: close\r\n{extra}\r\n".encode()


def ok_stream(*middle: bytes) -> Script:
    return [head(), b": OPENROUTER PROCESSING\n\n", chunk(""), *middle, sse("[DONE]")]


async def serve(
    script: Script, body: Callable[[PinnedClient], Awaitable[ChatResult]], deadline: float = 2.0
) -> ChatResult:
    writers: list[asyncio.StreamWriter] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writers.append(writer)
        headers = await reader.readuntil(b"\r\n\r\n")
        length = next((int(line.split(b":")[1]) for line in headers.split(b"\r\n")
                       if line.lower().startswith(b"content-length")), 0)
        await reader.readexactly(length)
        for step in script:
            if step is HANG:
                await asyncio.sleep(3600)
            elif isinstance(step, float):
                await asyncio.sleep(step)
            else:
                writer.write(step)
                await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    settings = Upstream(base_url=f"http://127.0.0.1:{port}/api/v1", api_key=SECRET)
    try:
        async with PinnedClient(settings, deadline_s=deadline) as client:
            return await body(client)
    finally:
        server.close()
        for writer in writers:  # a hung handler's connection too: nothing left for the collector
            writer.close()
        await asyncio.sleep(0)  # let the transports finish closing while the loop runs


def run(script: Script, *, stream: bool = True, deadline: float = 2.0) -> ChatResult:
    messages = [{"role": "user", "content": "hi"}]
    result = asyncio.run(serve(script, lambda c: c.chat(ENDPOINT, messages, max_tokens=50, stream=stream), deadline))
    assert SECRET not in repr(result) and SECRET not in str(result)
    return result
