"""Reply content: max_tokens, structured output, usage and cost, permaslugs, and the default story."""

from __future__ import annotations

import json
from collections import Counter
from decimal import Decimal

import httpx
import jsonschema
import pytest
from simkit import KEY, chat_body, one_endpoint_scenario, stream_chat

from simulator import load_scenario
from simulator.plan import Plan
from simulator.replies import (
    BYTES_PER_TOKEN,
    HttpFailure,
    count_tokens,
    plan_reply,
    reply_rng,
)
from simulator.request import parse_chat_request

SCHEMA = {
    "type": "object",
    "properties": {
        "reply": {"type": "string", "maxLength": 80},
        "trust": {"type": "integer", "minimum": 0, "maximum": 10},
    },
    "required": ["reply", "trust"],
    "additionalProperties": False,
}
JSON_SCHEMA = {"type": "json_schema", "json_schema": {"name": "turn", "strict": True, "schema": SCHEMA}}


def test_max_tokens_truncates_the_reply_and_finishes_with_length(healthy):
    result = stream_chat(healthy.base_url, chat_body("aurora/fp8", max_tokens=12))

    assert result.finish_reason == "length"
    assert result.chunks[-1]["usage"]["completion_tokens"] == 12
    assert len(result.text.encode()) <= 12 * BYTES_PER_TOKEN


def test_a_healthy_endpoint_returns_json_that_satisfies_the_requested_schema(healthy):
    for _ in range(3):
        result = stream_chat(healthy.base_url, chat_body("aurora/fp8", response_format=JSON_SCHEMA))
        jsonschema.validate(json.loads(result.text), SCHEMA)


def test_json_object_mode_returns_a_json_object(healthy):
    result = stream_chat(healthy.base_url, chat_body("aurora/fp8", response_format={"type": "json_object"}))

    assert isinstance(json.loads(result.text), dict)


def test_usage_cost_follows_the_serving_endpoints_per_token_prices(healthy):
    plain = chat_body("borealis/bf16", stream=False)
    body = httpx.post(f"{healthy.base_url}/chat/completions", json=plain, headers=KEY).json()

    usage = body["usage"]
    expected = Decimal("0.00000028") * usage["prompt_tokens"] + Decimal("0.00000114") * usage["completion_tokens"]
    assert usage["cost"] == pytest.approx(float(expected))
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    assert usage["completion_tokens"] == count_tokens(body["choices"][0]["message"]["content"])


def test_responses_name_the_permaslug_which_may_differ_from_the_requested_id(simulate):
    data = one_endpoint_scenario()
    data["models"][0]["permaslug"] = "deepseek/deepseek-chat-v3-0324-20250324"
    sim = simulate(data)

    result = stream_chat(sim.base_url, chat_body("test/fp8"))

    assert {c["model"] for c in result.chunks} == {"deepseek/deepseek-chat-v3-0324-20250324"}
    assert len({c["id"] for c in result.chunks}) == 1
    assert result.headers["X-Generation-Id"] == result.chunks[0]["id"]


def test_a_slow_non_streaming_reply_commits_200_early_and_pads_with_whitespace(simulate):
    sim = simulate(one_endpoint_scenario({"slow_first_token": {"rate": 1.0, "delay_ms": 150}}))

    response = httpx.post(f"{sim.base_url}/chat/completions", json=chat_body("test/fp8", stream=False), headers=KEY)

    assert response.status_code == 200
    assert response.content.startswith(b"\n")
    assert response.json()["choices"][0]["message"]["content"]


def test_the_role_chunk_carries_no_text_and_keepalives_come_before_it(healthy):
    result = stream_chat(healthy.base_url, chat_body("aurora/fp8"))

    assert result.chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    assert result.comments >= 1


def plans(tag: str, count: int, **body: object) -> list[Plan | HttpFailure]:
    """Plan `count` repeated requests to a default-scenario endpoint without any I/O."""
    model = load_scenario().models[0]
    endpoint = next(e for e in model.endpoints if e.tag == tag)
    request = parse_chat_request(chat_body(tag, **body))
    return [
        plan_reply(request, model, endpoint, lambda e: e.behaviour, reply_rng(0, tag, request.messages_hash, attempt))
        for attempt in range(count)
    ]  # type: ignore[misc]


def test_the_default_corrupting_host_spoils_nearly_every_reply():
    spoiled = sum("leading_garbage" in p.faults for p in plans("cinder/fp8", 100))

    assert 85 <= spoiled <= 100


def test_the_default_filtering_host_almost_always_refuses_or_filters():
    outcomes = Counter(p.faults[0] if p.faults else "clean" for p in plans("ember/fp8", 100))

    assert outcomes["clean"] <= 8 and outcomes["refusal"] > 40 and outcomes["content_filter"] > 20


def test_the_default_flaky_host_fails_about_a_third_of_the_time():
    failed = sum(bool(p.faults) for p in plans("harbor/bf16", 200))

    assert 35 <= failed <= 90


def test_the_default_slow_host_starts_after_the_latency_threshold():
    assert min(p.ttft_s for p in plans("fjord/fp16", 20)) > 10  # type: ignore[union-attr]


def test_the_default_healthy_host_has_no_faults():
    assert not any(p.faults for p in plans("aurora/fp8", 50))


def test_the_default_healthy_host_plans_its_configured_timing():
    for plan in plans("aurora/fp8", 20):
        assert isinstance(plan, Plan)
        assert 0.33 <= plan.ttft_s <= 0.57 and plan.tokens_per_second == 62  # 450 ms +/- 120 ms jitter
