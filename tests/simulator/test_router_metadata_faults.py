"""OpenRouter's router metadata, over a real socket: sent only when asked for, where the documentation
puts it (a stream's final chunk before [DONE], a body, an error envelope beside `error`), and the
three faults it tells of: response healing, a guardrail (flagging, or blocking with a 403), a fallback."""

from __future__ import annotations

import json

import httpx
import jsonschema
import pytest
from simkit import KEY, chat_body, one_endpoint_scenario, stream_chat

from simulator.banks import load_bank

ASK = {"X-OpenRouter-Metadata": "enabled"}
PT = load_bank("pt")
SCHEMA = {"type": "object", "properties": {"reply": {"type": "string"}}, "required": ["reply"],
          "additionalProperties": False}
JSON_SCHEMA = {"type": "json_schema", "json_schema": {"name": "scene", "strict": True, "schema": SCHEMA}}


def faulty(simulate, name: str, **params: object):
    return simulate(one_endpoint_scenario({name: {"rate": 1.0, **params}}), seed=11)


def metadata(result) -> dict:
    """The one `openrouter_metadata` of a stream: on its final chunk before [DONE]."""
    assert result.done and "openrouter_metadata" in result.chunks[-1], result.chunks[-1]
    assert all("openrouter_metadata" not in c for c in result.chunks[:-1])
    return result.chunks[-1]["openrouter_metadata"]


@pytest.mark.parametrize("header, value", [("X-OpenRouter-Metadata", "enabled"), ("x-openrouter-metadata", "ENABLED"),
                                           ("X-OpenRouter-Experimental-Metadata", "Enabled")])
def test_a_stream_that_asks_for_router_metadata_ends_with_it_naming_one_attempt(healthy, header, value):
    result = stream_chat(healthy.base_url, chat_body("aurora/fp8"), headers={header: value})

    meta = metadata(result)
    assert meta["attempts"] == [{"provider": "Aurora", "model": meta["requested"], "status": 200}]
    assert meta["attempt"] == 1 and meta["endpoints"]["available"][0]["selected"] is True


@pytest.mark.parametrize("headers", [{}, {"X-OpenRouter-Metadata": "yes"}, {"X-OpenRouter-Metadata": "disabled"}])
def test_no_router_metadata_unless_the_header_says_enabled(healthy, headers):
    result = stream_chat(healthy.base_url, chat_body("aurora/fp8"), headers=headers)

    assert result.done and not any("openrouter_metadata" in c for c in result.chunks)


def test_a_non_streamed_body_carries_router_metadata_at_its_top_level(healthy):
    body = httpx.post(f"{healthy.base_url}/chat/completions", json=chat_body("aurora/fp8", stream=False),
                      headers={**KEY, **ASK}, timeout=20).json()

    assert body["choices"][0]["message"]["content"]
    assert body["openrouter_metadata"]["attempts"][0]["provider"] == "Aurora"


@pytest.mark.parametrize("status, sent", [(503, True), (500, False)])
def test_an_error_envelope_carries_router_metadata_beside_error_except_a_500s(simulate, status, sent):
    sim = faulty(simulate, "http_error", status=status)

    result = stream_chat(sim.base_url, chat_body("test/fp8"), headers=ASK)

    assert result.status == status and "error" in result.error_body
    assert ("openrouter_metadata" in result.error_body) is sent
    if sent:
        assert result.error_body["openrouter_metadata"]["attempts"] == [
            {"provider": "Testhost", "model": chat_body()["model"], "status": status}]


def test_response_healing_sends_valid_json_and_a_healing_stage_on_a_json_request_only(simulate):
    sim = faulty(simulate, "response_healing")

    healed = stream_chat(sim.base_url, chat_body("test/fp8", response_format=JSON_SCHEMA), headers=ASK)
    prose = stream_chat(sim.base_url, chat_body("test/fp8"), headers=ASK)

    jsonschema.validate(json.loads(healed.text), SCHEMA)
    assert metadata(healed)["pipeline"] == [{"type": "response_healing", "name": "response-healing",
                                             "data": {"mode": "json_schema", "improved": True}}]
    assert metadata(prose)["pipeline"] == [] and prose.text


def test_a_flagging_guardrail_sends_its_stage_and_the_models_answer_to_what_is_left_a_decline(simulate):
    sim = faulty(simulate, "guardrail")

    result = stream_chat(sim.base_url, chat_body("test/fp8"), headers=ASK)

    assert result.text in PT.refusals and result.finish_reason == "stop"
    (stage,) = metadata(result)["pipeline"]
    assert stage["type"] == "guardrail" and stage["data"]["flagged"] is True
    assert metadata(result)["attempts"][0]["provider"] == "Testhost"


def test_a_blocking_guardrail_is_a_403_with_its_stage_and_no_attempts(simulate):
    sim = faulty(simulate, "guardrail", blocking=True)

    result = stream_chat(sim.base_url, chat_body("test/fp8"), headers=ASK)
    bare = stream_chat(sim.base_url, chat_body("test/fp8"))

    assert result.status == 403 and not result.chunks and "patterns" in result.error_body["error"]["metadata"]
    meta = result.error_body["openrouter_metadata"]
    assert "attempts" not in meta and meta["pipeline"][0]["data"]["action"] == "blocked"
    assert not meta["endpoints"]["available"][0]["selected"]
    assert bare.status == 403 and "openrouter_metadata" not in bare.error_body


def test_a_fallback_attempt_lists_the_pinned_host_failing_and_another_serving_while_the_chunks_name_the_pinned(
        simulate):
    sim = faulty(simulate, "fallback_attempt")

    result = stream_chat(sim.base_url, chat_body("test/fp8"), headers=ASK)

    assert result.providers == {"Testhost"} and result.text
    meta = metadata(result)
    assert [(a["provider"], a["status"]) for a in meta["attempts"]] == [("Testhost", 502), ("Sparehost", 200)]
    assert meta["attempt"] == 2
