"""The pinned client against the simulator, over real sockets: pinning, every fault, the key.

Each test builds a tiny scenario (one model, the endpoints it needs, faults at rate 1) and
drives the real client at it. Deadlines are 1-3 s to keep the suite fast. Timing is asserted
only as a lower bound (measured TTFT >= injected delay); upper bounds belong to the benchmark.
"""

from __future__ import annotations

import asyncio
import json
import socket
from typing import Any

import pytest
from client_support import MESSAGES, MODEL, SECRET, chat, chat_bodies, spec, upstream

from core.upstream import Upstream, resolve_upstream
from probes.http.client import PinnedClient
from probes.http.discovery import discover
from probes.http.records import ChatResult, Classification, Endpoint, ErrorKind

SCHEMA = {"type": "json_schema", "json_schema": {"name": "scene", "strict": True, "schema": {
    "type": "object", "properties": {"reply": {"type": "string"}}, "required": ["reply"],
    "additionalProperties": False}}}


def test_a_pinned_request_lands_on_the_tag_and_carries_the_exact_pin() -> None:
    # borealis is the dearest: without the pin the router would pick a cheaper endpoint.
    with upstream(spec("aurora/fp8", pricing={"prompt": "0.0000001", "completion": "0.0000001"}),
                  spec("borealis/bf16", pricing={"prompt": "0.000009", "completion": "0.000009"})) as sim:
        result = chat(sim, "borealis/bf16")
        (body,) = chat_bodies(sim)
    assert result.classification is Classification.COMPLETED and result.error_kind is None
    assert result.served_by == "Borealis" and result.finish_reason in ("stop", "length") and result.text
    assert body["provider"] == {"order": ["borealis/bf16"], "only": ["borealis/bf16"],
                                "allow_fallbacks": False, "require_parameters": True}
    assert "models" not in body and body["model"] == MODEL and body["stream"] is True
    assert result.usage is not None and result.usage.completion_tokens > 0 and result.usage.cost_usd
    assert result.generation_id and result.keepalives >= 1 and result.chunks >= 3
    assert result.ttft_s is not None and result.first_event_s is not None
    assert result.first_event_s <= result.ttft_s <= result.total_s


def test_optional_parameters_the_endpoint_does_not_list_are_left_out_of_the_pinned_request() -> None:
    with upstream(spec("aurora/fp8", supported_parameters=["max_tokens"])) as sim:
        result = chat(sim, temperature=0.7, seed=3)
        (body,) = chat_bodies(sim)
    assert result.completed and "temperature" not in body and "seed" not in body


def test_a_response_format_the_endpoint_lacks_makes_the_pin_unroutable_which_freezes() -> None:
    with upstream(spec("aurora/fp8", supported_parameters=["max_tokens", "temperature"])) as sim:
        result = chat(sim, response_format=SCHEMA)
    assert (result.classification, result.error_kind, result.http_status) == (
        Classification.TRANSPORT_ERROR, ErrorKind.HTTP_4XX, 404)


QUALITY_FAULTS = {  # the host answered: a completed generation, judged later by the contracts
    "leading-garbage": {"leading_garbage": {"rate": 1}},
    "mix-language": {"mix_language": {"rate": 1, "with": "es"}},
    "language-switch": {"language_switch": {"rate": 1, "to": "en"}},
    "mojibake": {"mojibake": {"rate": 1}},
    "replacement-char": {"replacement_char": {"rate": 1, "density": 0.2}},
    "repetition": {"repetition": {"rate": 1}},
    "refusal": {"refusal": {"rate": 1}},
}


@pytest.mark.parametrize("faults", QUALITY_FAULTS.values(), ids=QUALITY_FAULTS.keys())
def test_a_quality_fault_is_a_completed_generation_with_its_text(faults: dict[str, Any]) -> None:
    with upstream(spec("aurora/fp8", faults)) as sim:
        result = chat(sim)
    assert result.classification is Classification.COMPLETED and result.text.strip()
    assert result.error_kind is None and result.finish_reason is not None


def test_replacement_characters_reach_the_text_untouched() -> None:
    with upstream(spec("aurora/fp8", {"replacement_char": {"rate": 1, "density": 0.3}})) as sim:
        assert "\ufffd" in chat(sim).text


def test_a_content_filter_is_completed_with_finish_reason_content_filter() -> None:
    with upstream(spec("aurora/fp8", {"content_filter": {"rate": 1}})) as sim:
        result = chat(sim)
    assert result.classification is Classification.COMPLETED and result.finish_reason == "content_filter"


def test_an_empty_reply_is_completed_with_no_text() -> None:
    with upstream(spec("aurora/fp8", {"empty_reply": {"rate": 1}})) as sim:
        result = chat(sim)
    assert result.classification is Classification.COMPLETED and result.text.strip() == "" and result.ttft_s is None


@pytest.mark.parametrize("fault", ["schema_malformed", "schema_violation"])
def test_broken_structured_output_is_a_completed_generation_not_a_transport_error(fault: str) -> None:
    with upstream(spec("aurora/fp8", {fault: {"rate": 1}})) as sim:
        result = chat(sim, response_format=SCHEMA, max_tokens=400)
    assert result.classification is Classification.COMPLETED and result.text.strip()
    if fault == "schema_malformed":
        with pytest.raises(ValueError):
            json.loads(result.text)


def test_a_truncated_stream_is_a_transport_error_that_keeps_the_text_so_far() -> None:
    with upstream(spec("aurora/fp8", {"truncated_stream": {"rate": 1, "after": 0.5}})) as sim:
        result = chat(sim)
    assert (result.classification, result.error_kind) == (Classification.TRANSPORT_ERROR, ErrorKind.STREAM_CUT)
    assert result.text and result.finish_reason is None


@pytest.mark.parametrize(("status", "kind"), [(429, ErrorKind.HTTP_429), (408, ErrorKind.HTTP_408),
                                              (500, ErrorKind.HTTP_5XX), (502, ErrorKind.HTTP_5XX),
                                              (503, ErrorKind.HTTP_5XX), (400, ErrorKind.HTTP_4XX)])
def test_an_http_error_of_the_pinned_host_is_a_transport_error(status: int, kind: ErrorKind) -> None:
    with upstream(spec("aurora/fp8", {"http_error": {"rate": 1, "status": status}})) as sim:
        result = chat(sim)
    assert (result.classification, result.error_kind, result.http_status) == (
        Classification.TRANSPORT_ERROR, kind, status)
    assert result.error_message and str(status) in result.error_message


def test_a_hang_is_a_no_headers_transport_error_within_the_deadline() -> None:
    with upstream(spec("aurora/fp8", {"hang": {"rate": 1}})) as sim:
        result = chat(sim, deadline=1.0)
    assert (result.classification, result.error_kind, result.http_status) == (
        Classification.TRANSPORT_ERROR, ErrorKind.NO_HEADERS, None)
    # No upper bound on time (timings are measured, not asserted): the hang never ends, so only the
    # client's own deadline can produce NO_HEADERS here.
    assert result.total_s >= 1.0


@pytest.mark.parametrize("shape", ["documented", "recorded", "empty_choices"])
def test_every_mid_stream_error_shape_is_a_transport_error_that_keeps_the_text(shape: str) -> None:
    with upstream(spec("aurora/fp8", {"mid_stream_error": {"rate": 1, "shape": shape, "after": 0.5}})) as sim:
        result = chat(sim)
    assert (result.classification, result.error_kind) == (Classification.TRANSPORT_ERROR, ErrorKind.MID_STREAM_ERROR)
    assert result.text and "502" in (result.error_message or "")


def test_a_reply_from_another_provider_despite_the_pin_is_a_routing_mismatch() -> None:
    with upstream(spec("aurora/fp8", {"wrong_provider": {"rate": 1}}), spec("borealis/bf16")) as sim:
        result = chat(sim, "aurora/fp8")
    assert (result.classification, result.error_kind) == (Classification.ROUTING_MISMATCH, ErrorKind.ROUTING)
    assert result.served_by == "Borealis" and "aurora/fp8" in (result.error_message or "")


@pytest.mark.parametrize("delay_ms", [300, 800])
def test_measured_ttft_never_reads_below_the_injected_delay(delay_ms: int) -> None:
    with upstream(spec("aurora/fp8", {"slow_first_token": {"rate": 1, "delay_ms": delay_ms}}, ttft_ms=0)) as sim:
        result = chat(sim)
    assert result.completed and result.ttft_s is not None and result.ttft_s >= delay_ms / 1000


def test_a_slow_first_token_past_the_deadline_is_a_deadline_error_after_the_headers() -> None:
    with upstream(spec("aurora/fp8", {"slow_first_token": {"rate": 1, "delay_ms": 5000}})) as sim:
        result = chat(sim, deadline=1.0)
    assert (result.classification, result.error_kind, result.http_status) == (
        Classification.TRANSPORT_ERROR, ErrorKind.DEADLINE, 200)
    assert result.keepalives >= 1 and result.text == ""


def test_without_a_key_the_upstream_refusal_is_an_auth_error() -> None:
    with upstream(spec("aurora/fp8")) as sim:
        result = chat(sim, key=None)
    assert (result.classification, result.error_kind, result.http_status) == (
        Classification.AUTH_ERROR, ErrorKind.AUTH, 401)


def test_a_closed_port_is_a_connect_error() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again when the block ends: nothing listens there
    endpoint = Endpoint(MODEL, "aurora/fp8", "Aurora", None, ("max_tokens",), 0.0, 0.0, None, None, 0)

    async def go() -> ChatResult:
        upstream = Upstream(base_url=f"http://127.0.0.1:{port}/api/v1", api_key=SECRET)
        async with PinnedClient(upstream, deadline_s=2) as c:
            return await c.chat(endpoint, MESSAGES, max_tokens=10)

    result = asyncio.run(go())
    assert (result.classification, result.error_kind) == (Classification.TRANSPORT_ERROR, ErrorKind.CONNECT_ERROR)
    assert SECRET not in repr(result)


def test_a_non_streamed_request_completes_without_a_ttft() -> None:
    with upstream(spec("aurora/fp8")) as sim:
        result = chat(sim, stream=False)
        (body,) = chat_bodies(sim)
    assert result.completed and result.text and result.ttft_s is None and body["stream"] is False
    assert result.served_by == "Aurora" and result.usage is not None and result.finish_reason


@pytest.mark.parametrize("shape", ["documented", "recorded", "empty_choices"])
def test_a_non_streamed_error_inside_a_200_body_is_error_body_200(shape: str) -> None:
    with upstream(spec("aurora/fp8", {"mid_stream_error": {"rate": 1, "shape": shape}})) as sim:
        result = chat(sim, stream=False)
    assert (result.classification, result.error_kind, result.http_status) == (
        Classification.TRANSPORT_ERROR, ErrorKind.ERROR_BODY_200, 200)


def test_a_non_streamed_body_cut_in_the_middle_is_a_transport_error() -> None:
    with upstream(spec("aurora/fp8", {"truncated_stream": {"rate": 1}})) as sim:
        result = chat(sim, stream=False)
    assert result.classification is Classification.TRANSPORT_ERROR
    assert result.error_kind in (ErrorKind.STREAM_CUT, ErrorKind.MALFORMED_STREAM)


def test_the_per_provider_cap_serialises_requests_to_one_tag() -> None:
    with upstream(spec("aurora/fp8", ttft_ms=300)) as sim:
        async def go() -> tuple[list[ChatResult], float]:
            async with PinnedClient(Upstream(base_url=sim.base_url, api_key=SECRET), deadline_s=5,
                                    overall_concurrency=10, per_provider_concurrency=2) as client:
                (endpoint,) = await discover(client, MODEL)
                loop = asyncio.get_running_loop()
                start = loop.time()
                results = await asyncio.gather(*(client.chat(endpoint, MESSAGES, max_tokens=5) for _ in range(6)))
                return list(results), loop.time() - start

        results, wall = asyncio.run(go())
    assert all(r.completed for r in results)
    assert wall >= 0.9  # 6 requests, 2 at a time, each >= 300 ms: at least three waves


def test_the_key_never_shows_in_settings_client_or_results() -> None:
    settings = Upstream(base_url="http://127.0.0.1:9/api/v1", api_key=SECRET)
    client = PinnedClient(settings)
    for text in (repr(settings), str(settings), repr(client), f"{settings}"):
        assert SECRET not in text and "***" in text


def test_settings_come_from_the_environment_with_openrouter_as_default() -> None:
    default = Upstream()
    assert default.base_url == "https://openrouter.ai/api/v1" and default.api_key is None
    assert resolve_upstream({}) is None  # nothing set: the bundled simulator
    custom = resolve_upstream({"OPENROUTER_BASE_URL": "http://127.0.0.1:8080/api/v1/", "OPENROUTER_API_KEY": SECRET})
    assert custom is not None and custom.base_url == "http://127.0.0.1:8080/api/v1" and custom.has_key
    assert custom.auth_headers() == {"Authorization": f"Bearer {SECRET}"}
    assert resolve_upstream({"OPENROUTER_API_KEY": "  "}) is None
    keyless = resolve_upstream({"OPENROUTER_API_KEY": "  ", "OPENROUTER_BASE_URL": "http://127.0.0.1:8080/api/v1"})
    assert keyless is not None and keyless.api_key is None
    only_key = resolve_upstream({"OPENROUTER_API_KEY": SECRET})
    assert only_key is not None and only_key.base_url == "https://openrouter.ai/api/v1"
    assert resolve_upstream({"OPENROUTER_API_KEY": SECRET}, simulator=True) is None
