"""Tool calls in the simulator (simulator/tool_calls.py) over a real socket: the recorded OpenRouter
shape of streamed calls (charmbracelet/fantasy's OpenRouter cassettes: the first fragment of a call
carries index, id, type and name with `arguments: ""`, the next ones only the index and a few
characters, `content: null`, `finish_reason: tool_calls`), the same calls in a non-streamed body,
and each tool fault at rate 1.0; a request without `tools` is never touched by them."""

from __future__ import annotations

import json

import httpx
from simkit import KEY, TOOLS, calls_of, chat_body, one_endpoint_scenario, stream_chat, tools_body


def faulty(simulate, name: str, **params: object):
    return simulate(one_endpoint_scenario({name: {"rate": 1.0, **params}} if name else {}), seed=11)


def test_a_healthy_host_streams_both_calls_with_the_stated_arguments_in_the_recorded_shape(simulate):
    sim = faulty(simulate, "")
    result = stream_chat(sim.base_url, tools_body())
    calls = calls_of(result)
    assert [calls[i]["name"] for i in (0, 1)] == ["book_room", "roll_dice"]
    assert json.loads(calls[0]["arguments"]) == {"room": "tower", "nights": 2}
    assert json.loads(calls[1]["arguments"]) == {"sides": 20}
    assert calls[0]["fragments"] > 2 and all(len(c["ids"]) == 1 for c in calls.values())
    firsts = [p for c in result.chunks for p in (c.get("choices") or [{}])[0].get("delta", {}).get("tool_calls") or []
              if "id" in p]
    assert all(p["type"] == "function" and p["function"]["arguments"] == "" for p in firsts)
    assert result.text == "" and result.finish_reason == "tool_calls" and result.done


def test_the_non_streamed_body_carries_the_same_calls_as_message_tool_calls(simulate):
    sim = faulty(simulate, "")
    resp = httpx.post(f"{sim.base_url}/chat/completions", headers=KEY, json=tools_body(stream=False), timeout=20)
    choice = resp.json()["choices"][0]
    assert choice["finish_reason"] == "tool_calls" and choice["message"]["content"] is None
    assert [json.loads(c["function"]["arguments"]) for c in choice["message"]["tool_calls"]] == [
        {"room": "tower", "nights": 2}, {"sides": 20}]


def test_tool_markup_leak_writes_the_calls_as_kimi_markup_in_the_content(simulate):
    sim = faulty(simulate, "tool_markup_leak", dialect="kimi")
    result = stream_chat(sim.base_url, tools_body())
    assert calls_of(result) == {} and result.finish_reason == "stop"
    assert result.text.startswith("<|tool_calls_section_begin|><|tool_call_begin|>functions.book_room:0")


def test_tool_schema_break_sends_arguments_the_schema_rejects(simulate):
    sim = faulty(simulate, "tool_schema_break")
    calls = calls_of(stream_chat(sim.base_url, tools_body()))
    assert json.loads(calls[0]["arguments"]) != {"room": "tower", "nights": 2}


def test_tool_args_twice_streams_the_arguments_then_the_whole_arguments_again(simulate):
    sim = faulty(simulate, "tool_args_twice")
    args = calls_of(stream_chat(sim.base_url, tools_body()))[0]["arguments"]
    half = len(args) // 2
    assert args[:half] == args[half:] and json.loads(args[:half]) == {"room": "tower", "nights": 2}


def test_tool_no_arguments_sends_names_without_arguments(simulate):
    sim = faulty(simulate, "tool_no_arguments")
    calls = calls_of(stream_chat(sim.base_url, tools_body()))
    assert calls[0]["name"] == "book_room" and calls[0]["arguments"] == ""


def test_tool_finish_stop_ends_valid_calls_with_stop(simulate):
    sim = faulty(simulate, "tool_finish_stop")
    result = stream_chat(sim.base_url, tools_body())
    assert len(calls_of(result)) == 2 and result.finish_reason == "stop"


def test_tool_prose_answers_in_text_and_calls_nothing(simulate):
    sim = faulty(simulate, "tool_prose")
    result = stream_chat(sim.base_url, tools_body())
    assert calls_of(result) == {} and len(result.text) > 40 and result.finish_reason == "stop"


def test_a_request_without_tools_is_untouched_by_the_tool_faults(simulate):
    sim = faulty(simulate, "tool_markup_leak")
    result = stream_chat(sim.base_url, chat_body("test/fp8"))
    assert "<|tool" not in result.text and len(result.text) > 40 and calls_of(result) == {}


def with_tools(tools: list) -> dict:
    b = tools_body()
    b["tools"] = tools
    return b


def gemini_host(simulate):
    scenario = one_endpoint_scenario()
    scenario["models"][0]["endpoints"][0]["tool_enums"] = "strings"
    return simulate(scenario, seed=11)


def test_a_host_taking_string_enums_only_rejects_an_integer_enum_with_geminis_400(simulate):
    sim = gemini_host(simulate)
    tools = json.loads(json.dumps(TOOLS))
    tools[1]["function"]["parameters"]["properties"]["sides"]["enum"] = [4, 6, 20]

    result = stream_chat(sim.base_url, with_tools(tools))

    assert result.status == 400
    meta = result.error_body["error"]["metadata"]
    assert meta["provider_name"] == "Testhost"
    message = json.loads(meta["raw"])["error"]["message"]
    assert message == ("* GenerateContentRequest.tools[0].function_declarations[1].parameters.properties[sides].enum: "
                       "only allowed for STRING type\n")


def test_a_host_taking_string_enums_only_answers_string_enums_and_bounds(simulate):
    sim = gemini_host(simulate)
    tools = json.loads(json.dumps(TOOLS))
    tools[1]["function"]["parameters"]["properties"]["sides"].update(minimum=4, maximum=20)

    result = stream_chat(sim.base_url, with_tools(tools))

    assert result.status == 200 and result.finish_reason == "tool_calls" and len(calls_of(result)) == 2
