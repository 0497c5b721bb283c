"""Wire shapes the simulator does not emit, served byte for byte by a scripted socket server.

Real sockets, real HTTP/1.1 parsing by httpx: each test scripts the exact response bytes (and
pauses), so the client's classification of odd-but-real traffic is pinned down: reasoning
chunks, CR-only framing, a JSON error answering a stream request, invalid data events, an
endless reply, moderation 403s, a provider header naming someone else, an echoed key.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from wire_support import ENDPOINT, HANG, SECRET, chunk, head, ok_stream, run, serve, sse

from probes.http.client import PinnedClient
from probes.http.records import ChatResult, Classification, ErrorKind
from probes.http.stream import MAX_TEXT_CHARS


def test_cr_only_framing_and_keepalives_between_events_complete_normally() -> None:
    body = b": OPENROUTER PROCESSING\r\rdata: " + json.dumps({"provider": "Aurora", "choices": [
        {"index": 0, "delta": {"content": "Hi"}, "finish_reason": "stop"}]}).encode() + b"\r\r: x\r\rdata: [DONE]\r\r"
    result = run([head(), body])
    assert result.classification is Classification.COMPLETED
    assert (result.text, result.finish_reason, result.keepalives) == ("Hi", "stop", 2)


def test_reasoning_is_kept_apart_and_does_not_start_the_ttft() -> None:
    pause = 0.3
    result = run(ok_stream(chunk(None, reasoning="thinking..."), pause, chunk("Hello"), chunk("", "stop")))
    assert result.completed and result.text == "Hello" and result.reasoning_text == "thinking..."
    assert result.first_event_s is not None and result.ttft_s is not None
    assert result.first_event_s <= result.ttft_s
    # The server sends the text only after the pause, so a TTFT taken at the text cannot be shorter
    # than the pause however slow the machine (a load only lengthens it); a TTFT started by the
    # reasoning chunk, sent before the pause, would be shorter.
    assert result.ttft_s >= pause


def test_reasoning_followed_by_a_stall_leaves_no_ttft() -> None:
    result = run(ok_stream(chunk(None, reasoning="thinking..."))[:-1] + [HANG], deadline=0.5)
    assert result.error_kind is ErrorKind.DEADLINE and result.reasoning_text == "thinking..."
    assert result.first_event_s is not None and result.ttft_s is None


def test_a_reply_of_reasoning_only_is_completed_and_flagged_reasoning_only() -> None:
    result = run(ok_stream(chunk(None, reasoning="hmm " * 10), chunk("", "length")))
    assert result.completed and result.reasoning_only and result.ttft_s is None and result.finish_reason == "length"


def test_the_last_non_null_finish_reason_wins_over_a_null_usage_chunk() -> None:
    usage = sse({"provider": "Aurora", "choices": [{"index": 0, "delta": {}, "finish_reason": None}],
                 "usage": {"prompt_tokens": 5, "completion_tokens": 2, "cost": 0.0001}})
    result = run(ok_stream(chunk("Hi"), chunk("", "stop"), usage))
    assert result.finish_reason == "stop" and result.usage is not None and result.usage.completion_tokens == 2


def test_a_data_event_that_is_not_json_is_a_malformed_stream_and_keeps_the_text() -> None:
    result = run(ok_stream(chunk("Hel"), b"data: {not json\n\n", chunk("lo", "stop")))
    assert (result.classification, result.error_kind, result.text) == (
        Classification.TRANSPORT_ERROR, ErrorKind.MALFORMED_STREAM, "Hel")


def test_invalid_utf8_in_a_data_event_is_a_malformed_stream() -> None:
    result = run(ok_stream(b'data: {"choices":[{"index":0,"delta":{"content":"caf\xe9"}}]}\n\n'))
    assert result.error_kind is ErrorKind.MALFORMED_STREAM


def test_a_json_error_answering_a_stream_request_with_200_is_error_body_200() -> None:
    body = json.dumps({"error": {"code": 502, "message": "flagged"}, "user_id": "u"}).encode()
    result = run([head(200, "application/json"), b"\n\n  ", body])
    assert (result.classification, result.error_kind) == (Classification.TRANSPORT_ERROR, ErrorKind.ERROR_BODY_200)
    assert "flagged" in (result.error_message or "")


def test_a_choice_level_error_in_a_non_streamed_200_body_is_error_body_200() -> None:
    choice = {"index": 0, "finish_reason": "error", "message": {"content": "par"},
              "error": {"code": 502, "message": "Provider disconnected"}}
    body = json.dumps({"provider": "Aurora", "choices": [choice]})
    result = run([head(200, "application/json"), body.encode()], stream=False)
    assert result.error_kind is ErrorKind.ERROR_BODY_200 and "Provider disconnected" in (result.error_message or "")


def test_an_endless_reply_is_cut_by_us_and_reported_as_a_length_finish() -> None:
    piece = chunk("x" * 1000)
    result = run(ok_stream(*[piece] * (MAX_TEXT_CHARS // 1000 + 5)), deadline=5.0)
    assert result.completed and result.truncated_by_client and result.finish_reason == "length"
    assert len(result.text) == MAX_TEXT_CHARS


def test_a_finish_then_a_stall_before_done_is_still_a_completed_generation() -> None:
    result = run(ok_stream(chunk("Hi"), chunk("", "stop"))[:-1] + [HANG], deadline=1.0)
    assert result.completed and result.text == "Hi" and result.finish_reason == "stop"


def test_keepalives_trickling_past_the_deadline_are_a_deadline_error_with_the_text_so_far() -> None:
    result = run([head(), chunk("Once"), *[0.2, b": OPENROUTER PROCESSING\n\n"] * 30], deadline=1.0)
    assert (result.classification, result.error_kind, result.text) == (
        Classification.TRANSPORT_ERROR, ErrorKind.DEADLINE, "Once")
    # The trickle lasts 6 s; DEADLINE (not a stream cut after 6 s) shows the 1 s deadline held.
    assert result.keepalives >= 3 and result.total_s >= 1.0


def test_done_without_any_finish_reason_is_completed_with_no_finish() -> None:
    result = run(ok_stream(chunk("Hi")))
    assert result.completed and result.finish_reason is None


def test_a_connection_dropped_before_any_header_is_a_read_error() -> None:
    result = run([b""])
    assert (result.classification, result.error_kind) == (Classification.TRANSPORT_ERROR, ErrorKind.READ_ERROR)


def test_a_moderation_403_is_the_hosts_policy_answering_not_an_auth_error() -> None:
    body = json.dumps({"error": {"code": 403, "message": "flagged", "metadata": {
        "reasons": ["violence"], "flagged_input": "...", "provider_name": "Aurora", "model_slug": "acme/model-x"}}})
    result = run([head(403, "application/json"), body.encode()])
    assert (result.classification, result.error_kind) == (Classification.MODERATED, ErrorKind.MODERATION)
    assert result.flagged == ("violence",) and not result.completed and result.requests == 1


def test_hostile_moderation_categories_are_cleaned_and_bounded() -> None:
    reasons = ["\x1b[31mviolence\x1b[0m", "hate\nmore", "x" * 500, "\u202egnirts",
               *[f"c{i}" for i in range(10)], 7, None]
    metadata = {"reasons": reasons, "flagged_input": "."}
    body = json.dumps({"error": {"code": 403, "message": "flagged", "metadata": metadata}})
    result = run([head(403, "application/json"), body.encode()])
    assert result.classification is Classification.MODERATED
    assert len(result.flagged) == 6 and result.flagged[-1] == "+10 more"
    assert result.flagged[0] == "[31mviolence [0m" and result.flagged[1] == "hate more"
    assert len(result.flagged[2]) <= 40 and result.flagged[3] == "\\u202egnirts"   # the override shown, not obeyed
    assert all(ch.isprintable() for f in result.flagged for ch in f)


def test_a_guardrail_403_is_our_own_filter_and_stays_an_auth_error() -> None:
    body = json.dumps({"error": {"code": 403, "message": "Request blocked", "metadata": {"patterns": ["ignore all"]}}})
    result = run([head(403, "application/json"), body.encode()])
    assert (result.classification, result.error_kind) == (Classification.AUTH_ERROR, ErrorKind.AUTH)


@pytest.mark.parametrize("status", [401, 402, 403])
def test_our_key_refused_is_an_auth_error(status: int) -> None:
    result = run([head(status, "application/json"), b'{"error":{"code":%d,"message":"no"}}' % status])
    assert (result.classification, result.error_kind, result.http_status) == (
        Classification.AUTH_ERROR, ErrorKind.AUTH, status)


def test_an_x_provider_name_header_naming_another_provider_than_the_body_is_a_note_not_a_mismatch() -> None:
    # The header's value is undocumented; the body names the pinned provider (issue 19 item 7).
    result = run([head(extra="X-Provider-Name: Borealis\r\n"), *ok_stream(chunk("Hi"), chunk("", "stop"))[1:]])
    assert result.classification is Classification.COMPLETED and result.served_by == "Aurora"
    assert result.notes == ("X-Provider-Name 'Borealis' disagrees with the body's 'Aurora'",)


def test_an_x_provider_name_header_with_the_slug_is_the_pinned_provider() -> None:
    result = run([head(extra="X-Provider-Name: aurora\r\n"), *ok_stream(chunk("Hi"), chunk("", "stop"))[1:]])
    assert result.completed


def test_a_key_echoed_by_the_upstream_is_scrubbed_from_the_message() -> None:
    body = json.dumps({"error": {"code": 400, "message": f"bad header Authorization: Bearer {SECRET}"}})
    result = run([head(400, "application/json"), body.encode()])
    assert result.error_kind is ErrorKind.HTTP_4XX and "***" in (result.error_message or "")


# Issue 31: compressed bodies. The client asks identity for streams and gzip/deflate for JSON bodies.
def _gzip(data: bytes, *, wbits: int = 31) -> bytes:
    import zlib

    packer = zlib.compressobj(9, zlib.DEFLATED, wbits)
    return packer.compress(data) + packer.flush()


def test_a_stream_sent_compressed_is_a_malformed_stream_and_is_never_decoded() -> None:
    bomb = _gzip(b": OPENROUTER PROCESSING\n\n" * 400_000 + chunk("hi", "stop") + sse("[DONE]"))  # 10 MB decoded
    result = run([head(extra="Content-Encoding: gzip\r\n"), bomb], deadline=5.0)
    assert result.classification is Classification.TRANSPORT_ERROR and result.error_kind is ErrorKind.MALFORMED_STREAM
    assert result.error_message == "the stream came with Content-Encoding 'gzip' (identity was asked)"
    assert result.keepalives == 0 and len(bomb) < 32 * 1024  # nothing of it was inflated


def test_a_stream_saying_identity_is_read_as_usual() -> None:
    result = run([*ok_stream(chunk("Olá", "stop"))[:1], b": x\n\n", chunk("Olá", "stop"), sse("[DONE]")])
    assert result.classification is Classification.COMPLETED and result.text == "Olá"


@pytest.mark.parametrize("wbits", [31, 15, -15], ids=["gzip", "deflate", "raw-deflate"])
def test_a_compressed_json_body_is_decoded(wbits: int) -> None:
    body = json.dumps({"id": "gen-1", "provider": "Aurora", "model": "acme/model-x-2026",
                       "choices": [{"message": {"content": "Olá"}, "finish_reason": "stop"}]}).encode()
    encoding = "gzip" if wbits == 31 else "deflate"
    packed = _gzip(body, wbits=wbits)
    result = run([head(ctype="application/json", extra=f"Content-Encoding: {encoding}\r\n"), packed], stream=False)
    assert result.classification is Classification.COMPLETED and result.text == "Olá"


def test_a_json_body_gzip_bomb_is_inflated_no_further_than_the_cap() -> None:
    from probes.http.client import MAX_JSON_BODY
    from probes.http.transport import Inflater

    bomb = _gzip(b" " * (64 * MAX_JSON_BODY))  # 128 MiB of whitespace, ~130 KB on the wire
    inflater = Inflater("gzip", MAX_JSON_BODY)
    decoded = sum(len(inflater.feed(bomb[i:i + 65536])) for i in range(0, len(bomb), 65536))
    assert decoded == MAX_JSON_BODY and inflater.left == 0
    result = run([head(ctype="application/json", extra="Content-Encoding: gzip\r\n"), bomb], stream=False, deadline=5.0)
    assert result.error_kind is ErrorKind.MALFORMED_STREAM and result.error_message == "the 200 body is not JSON"


def test_a_json_body_in_an_encoding_the_client_never_offered_reads_as_not_json() -> None:
    result = run([head(ctype="application/json", extra="Content-Encoding: br\r\n"), b"\x1b\x00\x00"], stream=False)
    assert result.error_kind is ErrorKind.MALFORMED_STREAM and result.error_message == "the 200 body is not JSON"


def test_a_large_read_is_parsed_in_slices_and_other_tasks_run_between_them(monkeypatch: pytest.MonkeyPatch) -> None:
    from probes.http import client as client_module
    from probes.http.client import SSE_SLICE_BYTES
    from probes.http.sse import Item, SSEParser

    keepalives = b": OPENROUTER PROCESSING\n\n" * 40_000  # 1 MB in one write: reads of 64 KiB, many slices
    ticks = 0
    fed: list[tuple[int, int]] = []  # (bytes fed, ticks of the other task so far) per feed

    class Recording(SSEParser):
        def feed(self, chunk: bytes) -> list[Item]:
            fed.append((len(chunk), ticks))
            return super().feed(chunk)

    monkeypatch.setattr(client_module, "SSEParser", Recording)

    async def body(client: PinnedClient) -> ChatResult:
        async def ticker() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0)

        task = asyncio.create_task(ticker())
        try:
            return await client.chat(ENDPOINT, [{"role": "user", "content": "hi"}], max_tokens=50)
        finally:
            task.cancel()

    result = asyncio.run(serve([head(), keepalives + chunk("hi", "stop") + sse("[DONE]")], body, deadline=5.0))
    assert result.classification is Classification.COMPLETED and result.keepalives == 40_000
    assert max(size for size, _ in fed) <= SSE_SLICE_BYTES and len(fed) >= len(keepalives) // SSE_SLICE_BYTES
    steps: dict[int, int] = {}  # bytes parsed per step, a step being what ran between two turns of the loop
    for size, tick in fed:
        steps[tick] = steps.get(tick, 0) + size
    assert len(steps) >= len(keepalives) // SSE_SLICE_BYTES and max(steps.values()) < 2 * SSE_SLICE_BYTES


def test_a_flood_of_tool_calls_keeps_a_bounded_name_and_number_of_calls_and_says_so() -> None:
    from probes.http.stream import MAX_NAME_CHARS, MAX_TOOL_CALLS
    from probes.round.contracts.tools import SHOWN_CALLS, shown_calls

    names = [{"index": 0, "id": "c0", "function": {"name": "book_room", "arguments": ""}},
             *({"index": 0, "function": {"name": "x"}} for _ in range(5000))]
    calls = [{"index": i, "id": f"c{i}", "function": {"name": "", "arguments": ""}} for i in range(1, 3001)]
    flood = [chunk(None, tool_calls=names[i:i + 1000]) for i in range(0, len(names), 1000)]
    flood += [chunk(None, tool_calls=calls[i:i + 1000]) for i in range(0, len(calls), 1000)]
    result = run([*ok_stream(*flood, chunk("", "tool_calls"))], deadline=5.0)
    assert result.classification is Classification.COMPLETED and len(result.tool_calls) == MAX_TOOL_CALLS
    first = result.tool_calls[0]
    assert "".join(first.name_parts) == ("book_room" + "x" * 5000)[:MAX_NAME_CHARS]  # cut over all its fragments
    assert len(first.name_parts) == 1 + MAX_NAME_CHARS - len("book_room")
    assert result.notes == (f"{3000 - (MAX_TOOL_CALLS - 1)} tool-call fragments past the first {MAX_TOOL_CALLS} "
                            "calls were not kept",)
    lines = shown_calls(result.tool_calls)
    assert len(lines) == SHOWN_CALLS + 1 and lines[-1] == f"… and {MAX_TOOL_CALLS - SHOWN_CALLS} more tool calls"
