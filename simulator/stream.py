"""Turning a Plan into bytes on the wire, with OpenRouter's timing and framing.

Streaming: headers and a `: OPENROUTER PROCESSING` comment at once, more comments while the
"model" thinks, a role-only chunk, content from `ttft_s` on at `tokens_per_second`, a finish
chunk, a usage chunk (after `usage_delay_s` where the host's trait says so), `data: [DONE]`.
Non-streaming: headers at once, whitespace keep-alives (OpenRouter commits 200 early), then the
JSON body. Writes are scheduled against the loop clock so pacing does not drift.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import socket
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from simulator import hostile, wire
from simulator.plan import Plan
from simulator.replies import count_tokens
from simulator.scenario import Model

KEEPALIVE = b": OPENROUTER PROCESSING\n\n"
HANG_POLL_S = 0.25
COMMENT_EVERY_PIECES = 8  # a keep-alive between data events now and then, as recorded
_PIECE = re.compile(r"\s*\S{1,5}|\s+")  # about one token per content chunk


@dataclass(frozen=True, slots=True)
class Framing:
    """What every response of one generation shares: ids, model, keep-alive pace, extra headers."""

    model: Model
    gen_id: str
    keepalive_s: float
    headers: Mapping[str, str]
    metadata: Mapping[str, Any] | None = None   # `openrouter_metadata`, when the request asked for it


def sse(payload: Mapping[str, Any] | str, plan: Plan | None = None) -> bytes:
    return f"data: {hostile.dumps(payload, plan)}\n\n".encode()


def pieces(text: str) -> list[str]:
    """Split text into content deltas that concatenate back to it."""
    return _PIECE.findall(text)


def base_headers(gen_id: str) -> dict[str, str]:
    return {
        "X-Generation-Id": gen_id,
        "Access-Control-Allow-Origin": "*",
        "Access-Control-Expose-Headers": "X-Generation-Id",
    }


def json_error(status: int, body: Mapping[str, Any], retry_after: int | None = None) -> web.Response:
    """An error before any byte of the body: real status, OpenRouter's envelope."""
    headers = {"Retry-After": str(retry_after)} if retry_after is not None and status in (429, 503) else {}
    return web.json_response(body, status=status, headers=headers)


class _Clock:
    """Sleeps until a moment, writing keep-alives every `interval` seconds meanwhile."""

    def __init__(self, resp: web.StreamResponse, interval: float, keepalive: bytes) -> None:
        self.loop = asyncio.get_running_loop()
        self.start = self.loop.time()
        self.resp, self.interval, self.keepalive = resp, interval, keepalive

    async def until(self, offset: float) -> None:
        deadline = self.start + offset
        while (left := deadline - self.loop.time()) > 0:
            await asyncio.sleep(min(left, self.interval))
            if deadline - self.loop.time() > 0.001:
                await self.resp.write(self.keepalive)


async def send_stream(request: web.Request, plan: Plan, framing: Framing) -> web.StreamResponse:
    """Stream one generation as server-sent events."""
    headers = {**base_headers(framing.gen_id), **framing.headers}
    resp = web.StreamResponse(
        status=200, headers={**headers, "Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
    )
    if plan.compressed is not None:  # hostile compressed_stream: the whole stream at once, compressed
        resp.headers["Content-Encoding"] = plan.compressed[0]
    try:
        await resp.prepare(request)
        if plan.compressed is not None:
            chunks = wire.ChunkMaker(framing.gen_id, framing.model, plan)
            events = b"".join(sse(c, plan) for c in (chunks.delta(plan.text), chunks.finish(), chunks.usage()))
            # In a thread: compressing a big bomb the first time takes a while, and the other hosts'
            # streams share this event loop.
            await resp.write(await asyncio.to_thread(hostile.compressed, events + sse("[DONE]"), *plan.compressed))
            await resp.write_eof()
            return resp
        await resp.write(KEEPALIVE)
        await _stream_body(request, resp, plan, framing)
    except ConnectionResetError:
        pass  # the client went away; nothing to finish
    return resp


async def _stream_body(request: web.Request, resp: web.StreamResponse, plan: Plan, framing: Framing) -> None:
    chunks = wire.ChunkMaker(framing.gen_id, framing.model, plan)
    clock = _Clock(resp, framing.keepalive_s, KEEPALIVE)
    await clock.until(min(plan.ttft_s / 2, 0.05))
    await resp.write(sse(chunks.delta(""), plan))  # role-only chunk: not a token
    await clock.until(plan.ttft_s)
    if plan.raw_event is not None:  # hostile: a data event that is not JSON, then the end
        await resp.write(sse(plan.raw_event))
        await resp.write(sse("[DONE]"))
        await resp.write_eof()
        return
    await _think(resp, plan, chunks, clock)
    answer_at = plan.ttft_s + plan.thinking_s  # the first answer text comes after the thinking
    stop_at = plan.cut_at if plan.cut_at is not None else plan.error.at if plan.error else None
    sent, elapsed_tokens = 0, 0
    for index, piece in enumerate(plan.chunks if plan.chunks is not None else pieces(plan.text)):
        if stop_at is not None and sent + len(piece) > stop_at and sent > 0:
            break
        await clock.until(answer_at + elapsed_tokens / plan.tokens_per_second)
        await resp.write(sse(chunks.delta(piece), plan))
        sent += len(piece)
        elapsed_tokens += count_tokens(piece)
        if index and index % COMMENT_EVERY_PIECES == 0:
            await resp.write(KEEPALIVE)
    if plan.cut_at is not None:
        _drop(request)  # truncated_stream: no finish, no [DONE], connection gone
        return
    await _tool_calls(resp, plan, chunks, clock, answer_at, elapsed_tokens)
    if plan.error is not None:
        await resp.write(sse(chunks.error(plan.error), plan))
    else:
        await resp.write(sse(chunks.finish(), plan))
        if plan.usage_sent:
            if plan.usage_delay_s:  # usage_delay: OpenRouter's separate usage chunk, late
                await clock.until(clock.loop.time() - clock.start + plan.usage_delay_s)
            await resp.write(sse(chunks.usage(), plan))
        if plan.trailing_error is not None:  # length_then_error: the recorded real shape
            await resp.write(sse(chunks.error(plan.trailing_error), plan))
    if framing.metadata is not None:  # router metadata: on the final chunk before [DONE]
        await resp.write(sse({**chunks.head, "choices": [], "openrouter_metadata": framing.metadata}, plan))
    await resp.write(sse("[DONE]"))
    await resp.write_eof()


async def _tool_calls(resp: web.StreamResponse, plan: Plan, chunks: wire.ChunkMaker, clock: _Clock,
                      answer_at: float, elapsed_tokens: int) -> None:
    """The reply's tool calls, after any text, at the token pace (and a hostile tool_flood's events)."""
    for index, call in enumerate(plan.tool_calls):  # after any text, as Anthropic-family hosts send them
        names = plan.name_fragments if index == 0 and plan.name_fragments else (call.name,)
        await resp.write(sse(chunks.tool_call(index, "", call.id, names[0]), plan))
        for name in names[1:]:  # hostile: the name in pieces, each in a fragment of its own
            await resp.write(sse(chunks.tool_call(index, "", None, name), plan))
        for fragment in call.fragments:
            elapsed_tokens += count_tokens(fragment)
            await clock.until(answer_at + elapsed_tokens / plan.tokens_per_second)
            await resp.write(sse(chunks.tool_call(index, fragment), plan))
    for flood in hostile.flood_events(*plan.tool_flood, first=len(plan.tool_calls)):  # hostile tool_flood
        event = hostile.dumps(chunks.tool_calls([]), plan).replace('"tool_calls": []', f'"tool_calls": {flood}', 1)
        await resp.write(f"data: {event}\n\n".encode())


async def _think(resp: web.StreamResponse, plan: Plan, chunks: wire.ChunkMaker, clock: _Clock) -> None:
    """A reasoning host's thinking, from the first token on: readable deltas at the token pace,
    one encrypted chunk at the end, or (reasoning excluded) only keep-alives while it thinks."""
    thinking = plan.thinking
    if thinking is None:
        return
    if thinking.shown and thinking.readable:
        elapsed_tokens = 0
        for piece in pieces(thinking.text):
            await clock.until(plan.ttft_s + elapsed_tokens / plan.tokens_per_second)
            await resp.write(sse(chunks.reasoning(piece), plan))
            elapsed_tokens += count_tokens(piece)
    await clock.until(plan.ttft_s + plan.thinking_s)
    if thinking.shown and not thinking.readable:
        await resp.write(sse(chunks.encrypted_reasoning(), plan))


async def send_completion(request: web.Request, plan: Plan, framing: Framing) -> web.StreamResponse:
    """A non-streaming completion: early 200, whitespace keep-alives, then the JSON body."""
    headers = {**base_headers(framing.gen_id), **framing.headers, "Content-Type": "application/json"}
    resp = web.StreamResponse(status=200, headers=headers)
    try:
        await resp.prepare(request)
        clock = _Clock(resp, framing.keepalive_s, b"\n")
        await clock.until(plan.ttft_s + plan.completion_tokens / plan.tokens_per_second)
        body = _completion_payload(plan, framing)
        if plan.cut_at is not None:
            await resp.write(body[: max(1, len(body) // 2)])
            _drop(request)
            return resp
        await resp.write(body)
        await resp.write_eof()
    except ConnectionResetError:
        pass
    return resp


def _completion_payload(plan: Plan, framing: Framing) -> bytes:
    if plan.error is not None and plan.error.shape != "documented":
        # The other shapes arrive as a top-level error object inside a 200 body.
        metadata = {"error_type": plan.error.error_type}
        body: dict[str, Any] = wire.error_body(plan.error.code, plan.error.message, metadata)
    else:
        content = plan.text[: plan.error.at] if plan.error else plan.text
        body = wire.completion_body(framing.gen_id, framing.model, plan, content)
    if framing.metadata is not None:
        body["openrouter_metadata"] = framing.metadata
    return hostile.dumps(body, plan).encode()


async def hang(request: web.Request, seconds: float | None) -> web.StreamResponse:
    """Accept the request and send nothing; after `seconds` (if set) drop the connection.

    Polls the transport so a handler whose client gave up ends instead of piling up.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + (seconds if seconds is not None else float("inf"))
    while loop.time() < deadline and request.transport is not None and not request.transport.is_closing():
        await asyncio.sleep(min(HANG_POLL_S, max(0.0, deadline - loop.time())))
    _drop(request)
    return web.StreamResponse()


def reset(request: web.Request) -> web.StreamResponse:
    """reset_before_response: the request was read; the connection is reset before any response byte."""
    sock = request.transport.get_extra_info("socket") if request.transport is not None else None
    if sock is not None:
        with contextlib.suppress(OSError):  # RST instead of FIN, as a dead peer or a full accept queue does
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    _drop(request)
    return web.StreamResponse()


def _drop(request: web.Request) -> None:
    """Close the socket abruptly: the client sees an incomplete response, not a clean end."""
    if request.transport is not None:
        request.transport.abort()
