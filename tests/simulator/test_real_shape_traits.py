"""The real wire's healthy shapes the simulator learned (issue 28; docs/openrouter-wire.md §9), over a
real socket: tool calls with a line in character and real per-call token counts, implicit cache
reads billed at the cache-read price, a late usage trailer, a host's tool template in the prompt
tokens, a reasoning host whose max_tokens bounds only the answer, zero price components in the
listing, and ascending throughput percentiles."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import httpx
from simkit import FAST, KEY, MODEL, chat_body, one_endpoint_scenario, stream_chat

from simulator.replies import count_tokens

TOOLS = [
    {"type": "function", "function": {"name": "book_room", "parameters": {
        "type": "object", "properties": {"room": {"type": "string"}, "nights": {"type": "integer"}},
        "required": ["room", "nights"]}}},
    {"type": "function", "function": {"name": "roll_dice", "parameters": {
        "type": "object", "properties": {"sides": {"type": "integer"}}, "required": ["sides"]}}},
]
ASK = 'Book it. (Call book_room with room="tower" and nights=2, and roll_dice with sides=20.)'


def faulty(simulate, name: str, *, pricing: dict[str, str] | None = None, **params: object):
    scenario = one_endpoint_scenario({name: {"rate": 1.0, **params}})
    if pricing is not None:
        scenario["models"][0]["endpoints"][0]["pricing"] = pricing
    return simulate(scenario, seed=11)


def tools_body(**extra: object) -> dict[str, Any]:
    body = chat_body("test/fp8", language="English", tools=TOOLS, **extra)
    body["messages"][-1]["content"] = ASK
    return body


def usage(result) -> dict[str, Any]:
    return next(c["usage"] for c in result.chunks if c.get("usage"))


def calls(result) -> dict[int, str]:
    out: dict[int, str] = {}
    for chunk in result.chunks:
        for part in (chunk.get("choices") or [{}])[0].get("delta", {}).get("tool_calls") or []:
            out[part["index"]] = out.get(part["index"], "") + (part.get("function", {}).get("arguments") or "")
    return out


def test_tool_call_shape_writes_a_line_in_character_and_bills_each_call_its_real_tokens(simulate):
    sim = faulty(simulate, "tool_call_shape", tokens_per_call=56, finish="stop")

    result = stream_chat(sim.base_url, tools_body(max_tokens=400))

    text = result.text
    assert text and text.count(".") <= 1  # one sentence, before the calls
    assert [json.loads(a) for a in calls(result).values()] == [{"room": "tower", "nights": 2}, {"sides": 20}]
    assert result.finish_reason == "stop" and result.done
    assert usage(result)["completion_tokens"] == count_tokens(text) + 2 * 56


def test_tool_call_shape_calls_that_overflow_max_tokens_are_cut_on_length(simulate):
    sim = faulty(simulate, "tool_call_shape", tokens_per_call=120)

    result = stream_chat(sim.base_url, tools_body(max_tokens=200))

    first, second = calls(result).values()
    assert json.loads(first) == {"room": "tower", "nights": 2}
    assert second and not second.endswith("}")  # cut mid-arguments
    assert result.finish_reason == "length"


def test_cache_reads_report_cached_prompt_tokens_billed_at_the_cache_read_price(simulate):
    pricing = {"prompt": "0.000001", "completion": "0.000002", "input_cache_read": "0.0000001"}
    sim = faulty(simulate, "cache_reads", share=0.5, pricing=pricing)

    u = usage(stream_chat(sim.base_url, chat_body("test/fp8")))

    cached = u["prompt_tokens_details"]["cached_tokens"]
    assert cached == int(u["prompt_tokens"] * 0.5) > 0
    expected = (Decimal("0.000001") * (u["prompt_tokens"] - cached) + Decimal("0.0000001") * cached
                + Decimal("0.000002") * u["completion_tokens"])
    assert u["cost"] == float(expected)


def events(base_url: str, body: dict[str, Any]) -> list[str]:
    """The stream as a list of `comment` / `finish` / `usage` / `content` / `done` events, in order."""
    out: list[str] = []
    with (httpx.Client(timeout=20) as client,
          client.stream("POST", f"{base_url}/chat/completions", json=body, headers=KEY) as resp):
        for line in resp.iter_lines():
            if line.startswith(":"):
                out.append("comment")
            elif line == "data: [DONE]":
                out.append("done")
            elif line.startswith("data: "):
                chunk = json.loads(line[6:])
                choice = (chunk.get("choices") or [{}])[0]
                out.append("usage" if chunk.get("usage") else "finish" if choice.get("finish_reason")
                           else "content")
    return out


def test_usage_delay_sends_the_usage_chunk_late_after_the_finish(simulate):
    sim = faulty(simulate, "usage_delay", ms=300)

    seen = events(sim.base_url, chat_body("test/fp8"))

    finish, trailer = seen.index("finish"), seen.index("usage")
    # Keep-alives (every 20 ms in this scenario) fill the pause between the finish and the usage.
    assert trailer > finish + 3 and set(seen[finish + 1:trailer]) == {"comment"}
    assert seen[-1] == "done"


def test_without_usage_delay_the_usage_follows_the_finish_at_once(simulate):
    sim = simulate(one_endpoint_scenario(), seed=11)

    seen = events(sim.base_url, chat_body("test/fp8"))

    assert seen.index("usage") == seen.index("finish") + 1


def test_tool_template_adds_the_hosts_template_tokens_to_a_tools_request_only(simulate):
    sim = faulty(simulate, "tool_template", tokens=300)

    with_tools = usage(stream_chat(sim.base_url, tools_body()))["prompt_tokens"]
    on_spare = usage(stream_chat(sim.base_url, {**tools_body(), "provider": {
        "order": ["spare/fp8"], "only": ["spare/fp8"], "allow_fallbacks": False}}))["prompt_tokens"]
    plain = usage(stream_chat(sim.base_url, chat_body("test/fp8")))["prompt_tokens"]
    plain_spare = usage(stream_chat(sim.base_url, chat_body("spare/fp8")))["prompt_tokens"]

    assert with_tools == on_spare + 300 and plain == plain_spare


def test_thinking_with_answer_cap_thinks_on_top_of_max_tokens(simulate):
    sim = faulty(simulate, "thinking", tokens=2400, answer_cap=True)

    body = chat_body("test/fp8", max_tokens=1224, reasoning={"effort": "low", "exclude": True})
    u = usage(stream_chat(sim.base_url, body))

    reasoning = u["completion_tokens_details"]["reasoning_tokens"]
    assert reasoning == 2400 and u["completion_tokens"] > 1224
    assert 0 < u["completion_tokens"] - reasoning <= 1224  # the answer keeps within the cap


def test_thinking_without_answer_cap_shares_max_tokens(simulate):
    sim = faulty(simulate, "thinking", tokens=2400)

    u = usage(stream_chat(sim.base_url, chat_body("test/fp8", max_tokens=1224,
                                                  reasoning={"effort": "low", "exclude": True})))

    assert u["completion_tokens"] <= 1224


def listing(sim) -> dict[str, dict[str, Any]]:
    data = httpx.get(f"{sim.base_url}/models/{MODEL}/endpoints", headers=KEY, timeout=10).json()["data"]
    return {e["tag"]: e for e in data["endpoints"]}


def test_zero_price_components_are_listed_and_reasoning_is_billed_at_the_completion_price(simulate):
    pricing = {"prompt": "0.00000025", "completion": "0.000002", "internal_reasoning": "0", "request": "0",
               "web_search": "0"}
    sim = faulty(simulate, "thinking", tokens=100, pricing=pricing)

    listed = listing(sim)["test/fp8"]["pricing"]
    u = usage(stream_chat(sim.base_url, chat_body("test/fp8", max_tokens=1000)))

    assert {k: listed[k] for k in ("internal_reasoning", "request", "web_search")} == {
        "internal_reasoning": "0", "request": "0", "web_search": "0"}
    assert u["completion_tokens_details"]["reasoning_tokens"] == 100
    assert u["cost"] == float(Decimal("0.00000025") * u["prompt_tokens"] + Decimal("0.000002") * u["completion_tokens"])


def test_throughput_percentiles_ascend_as_on_the_real_listing(simulate):
    scenario = one_endpoint_scenario()
    scenario["models"][0]["endpoints"][1]["throughput_order"] = "descending"
    sim = simulate(scenario, seed=11)

    real, example = listing(sim)["test/fp8"]["throughput_last_30m"], listing(sim)["spare/fp8"]["throughput_last_30m"]

    assert real["p50"] == FAST["tokens_per_second"] and real["p50"] < real["p75"] < real["p90"] < real["p99"]
    assert example["p50"] > example["p75"] > example["p90"] > example["p99"]
