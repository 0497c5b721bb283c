"""Every fault is observable over a real socket, at rate 1.0 on a pinned endpoint."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import httpx
import jsonschema
import pytest
from simkit import KEY, MODEL, chat_body, one_endpoint_scenario, stream_chat

from simulator import FAULT_NAMES
from simulator.banks import load_bank
from simulator.corrupt import REPLACEMENT_CHAR
from simulator.faults import DEFAULT_GARBAGE

PT, ES, DE = load_bank("pt"), load_bank("es"), load_bank("de")
SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 2, "maxLength": 40},
        "age": {"type": "integer", "minimum": 18, "maximum": 99},
        "mood": {"type": "string", "enum": ["calm", "angry"]},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3},
    },
    "required": ["name", "age", "mood", "tags"],
    "additionalProperties": False,
}
JSON_SCHEMA = {"type": "json_schema", "json_schema": {"name": "character", "strict": True, "schema": SCHEMA}}


def faulty(simulate, name: str, **params: object):
    return simulate(one_endpoint_scenario({name: {"rate": 1.0, **params}}), seed=11)


def unmojibake(text: str) -> str:
    raw = bytearray()
    for char in text:
        try:
            raw += char.encode("cp1252")
        except UnicodeEncodeError:
            raw += char.encode("latin-1")
    return raw.decode("utf-8")


def sentences_of(text: str, bank) -> list[str]:
    return [s for s in bank.sentences if s in text]


def test_slow_first_token_delays_the_first_content_but_sends_keepalives_meanwhile(simulate):
    sim = faulty(simulate, "slow_first_token", delay_ms=300)

    result = stream_chat(sim.base_url, chat_body("test/fp8"))

    assert result.first_content_s is not None and result.first_content_s >= 0.3
    assert result.comments >= 3 and result.done


def test_leading_garbage_puts_a_stray_fragment_before_the_reply(simulate):
    sim = faulty(simulate, "leading_garbage")

    texts = [stream_chat(sim.base_url, chat_body("test/fp8")).text for _ in range(4)]

    assert all(t.startswith(DEFAULT_GARBAGE) for t in texts)
    assert all(sentences_of(t, PT) for t in texts)


def test_mix_language_mixes_whole_sentences_of_the_other_language(simulate):
    sim = faulty(simulate, "mix_language", level="sentence")

    text = stream_chat(sim.base_url, chat_body("test/fp8")).text

    assert len(sentences_of(text, ES)) >= 2 and sentences_of(text, PT)


def test_mix_language_at_word_level_swaps_words_inside_sentences(simulate):
    sim = faulty(simulate, "mix_language", level="word", ratio=1.0)

    text = stream_chat(sim.base_url, chat_body("test/fp8")).text

    es_words = set(ES.words) - set(PT.words)
    assert any(w.strip('.,;:!?"*') in es_words for w in text.split())
    assert not sentences_of(text, ES)


def test_mix_language_mixes_with_portuguese_when_spanish_was_requested(simulate):
    sim = faulty(simulate, "mix_language", level="sentence")

    text = stream_chat(sim.base_url, chat_body("test/fp8", language="Spanish")).text

    assert sentences_of(text, PT) and sentences_of(text, ES)


def test_language_switch_replies_entirely_in_another_language(simulate):
    sim = faulty(simulate, "language_switch", to="de")

    text = stream_chat(sim.base_url, chat_body("test/fp8")).text

    assert sentences_of(text, DE) and not sentences_of(text, PT)


def test_mojibake_shows_utf8_read_as_cp1252(simulate):
    sim = faulty(simulate, "mojibake")

    text = stream_chat(sim.base_url, chat_body("test/fp8")).text

    assert "Ã" in text
    assert len(sentences_of(unmojibake(text), PT)) > len(sentences_of(text, PT))


def test_replacement_char_sprinkles_u_fffd(simulate):
    sim = faulty(simulate, "replacement_char", density=0.1)

    text = stream_chat(sim.base_url, chat_body("test/fp8")).text

    assert text.count(REPLACEMENT_CHAR) >= 5


def test_repetition_loops_one_sentence(simulate):
    sim = faulty(simulate, "repetition", times=6)

    text = stream_chat(sim.base_url, chat_body("test/fp8")).text

    counts = Counter(s for s in PT.sentences for _ in range(text.count(s)))
    assert counts.most_common(1)[0][1] >= 6


def test_refusal_replies_with_a_prose_refusal_in_the_requested_language(simulate):
    sim = faulty(simulate, "refusal")

    result = stream_chat(sim.base_url, chat_body("test/fp8"))

    assert result.text in PT.refusals and result.finish_reason == "stop"


def test_content_filter_finishes_with_content_filter(simulate):
    sim = faulty(simulate, "content_filter", partial=1.0)

    result = stream_chat(sim.base_url, chat_body("test/fp8"))

    assert result.finish_reason == "content_filter" and result.done
    size = len(result.text.encode())
    assert result.chunks[-1]["usage"]["completion_tokens"] == size // 4 + (size % 4 > 0)


def test_empty_reply_finishes_normally_with_no_text(simulate):
    sim = faulty(simulate, "empty_reply")

    result = stream_chat(sim.base_url, chat_body("test/fp8"))

    assert result.text == "" and result.finish_reason == "stop" and result.done


def test_truncated_stream_drops_the_connection_without_finish_or_done(simulate):
    sim = faulty(simulate, "truncated_stream", after=0.5)

    result = stream_chat(sim.base_url, chat_body("test/fp8"))

    assert result.dropped and not result.done
    assert result.text and result.finish_reason is None


def test_truncated_non_streaming_body_is_cut_mid_json(simulate):
    sim = faulty(simulate, "truncated_stream")

    with pytest.raises(httpx.RemoteProtocolError):
        httpx.post(f"{sim.base_url}/chat/completions", json=chat_body("test/fp8", stream=False), headers=KEY)


def test_schema_malformed_returns_invalid_json_for_a_json_schema_request(simulate):
    sim = faulty(simulate, "schema_malformed")

    for _ in range(4):
        result = stream_chat(sim.base_url, chat_body("test/fp8", response_format=JSON_SCHEMA))
        assert result.finish_reason == "stop"
        with pytest.raises(ValueError):
            json.loads(result.text)


def test_schema_violation_returns_valid_json_that_breaks_the_schema(simulate):
    sim = faulty(simulate, "schema_violation")

    for _ in range(4):
        value = json.loads(stream_chat(sim.base_url, chat_body("test/fp8", response_format=JSON_SCHEMA)).text)
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(value, SCHEMA)


def test_schema_faults_leave_plain_text_requests_alone(simulate):
    sim = faulty(simulate, "schema_malformed")

    assert sentences_of(stream_chat(sim.base_url, chat_body("test/fp8")).text, PT)


@pytest.mark.parametrize("status", [429, 500, 502, 503, 408, 402], ids=lambda s: f"http-{s}")
def test_http_error_returns_the_status_before_any_byte(simulate, status):
    sim = faulty(simulate, "http_error", status=status, retry_after=3)

    result = stream_chat(sim.base_url, chat_body("test/fp8"))

    assert result.status == status
    assert result.error_body["error"]["code"] == status and result.error_body["user_id"]
    if status in (429, 503):
        assert result.headers["Retry-After"] == "3"
    if status == 429:
        assert result.error_body["error"]["metadata"]["provider_name"] == "Testhost"
        assert "rate-limited" in result.error_body["error"]["metadata"]["raw"]


def test_hang_accepts_the_request_and_sends_nothing(simulate):
    sim = faulty(simulate, "hang")

    with pytest.raises(httpx.ReadTimeout):
        stream_chat(sim.base_url, chat_body("test/fp8"), timeout=0.3)


def test_hang_with_seconds_drops_the_connection_without_a_response(simulate):
    sim = faulty(simulate, "hang", seconds=0.05)

    with pytest.raises(httpx.RemoteProtocolError):
        stream_chat(sim.base_url, chat_body("test/fp8"))


@pytest.mark.parametrize("shape", ["documented", "recorded", "empty_choices"])
def test_mid_stream_error_arrives_as_a_chunk_then_done(simulate, shape):
    sim = faulty(simulate, "mid_stream_error", shape=shape, code=502)

    result = stream_chat(sim.base_url, chat_body("test/fp8"))

    assert result.status == 200 and result.done and result.text
    [chunk] = result.errors
    assert chunk["error"]["code"] == 502 and isinstance(chunk["error"]["code"], int)
    if "metadata" in chunk["error"]:
        assert chunk["error"]["metadata"]["error_type"] == "provider_unavailable"
    if shape == "documented":
        assert chunk["choices"][0]["finish_reason"] == "error"
    elif shape == "recorded":
        assert chunk["choices"][0]["finish_reason"] is None and "usage" in chunk
    else:
        assert chunk["choices"] == []


def test_mid_stream_error_in_a_non_streaming_request_is_a_choice_level_error(simulate):
    sim = faulty(simulate, "mid_stream_error", shape="documented")

    body = httpx.post(f"{sim.base_url}/chat/completions", json=chat_body("test/fp8", stream=False), headers=KEY).json()

    assert body["choices"][0]["finish_reason"] == "error"
    assert body["choices"][0]["error"]["code"] == 502


def test_wrong_provider_serves_from_another_endpoint_despite_pinning(simulate):
    sim = faulty(simulate, "wrong_provider")

    result = stream_chat(sim.base_url, chat_body("test/fp8"))

    assert result.providers == {"Sparehost"}
    assert result.headers["X-Sim-Faults"] == "wrong_provider"


def test_short_reply_sends_a_few_words_of_a_bank_sentence_with_a_normal_finish(simulate):
    sim = faulty(simulate, "short_reply", words=3)

    result = stream_chat(sim.base_url, chat_body("test/fp8"))

    assert len(result.text.split()) == 3 and result.finish_reason == "stop"
    assert any(s.startswith(result.text) for s in PT.sentences)


def test_short_reply_leaves_json_requests_whole(simulate):
    sim = faulty(simulate, "short_reply")

    result = stream_chat(sim.base_url, chat_body("test/fp8", response_format=JSON_SCHEMA))

    jsonschema.validate(json.loads(result.text), SCHEMA)


def test_catch_phrase_adds_one_foreign_phrase_to_a_clean_reply(simulate):
    sim = faulty(simulate, "catch_phrase", phrases=['"Mamma mia!"'])

    result = stream_chat(sim.base_url, chat_body("test/fp8"))

    assert result.text.count('"Mamma mia!"') == 1
    rest = result.text.replace('"Mamma mia!"', "").split()
    assert sum(any(w in s for s in PT.sentences) for w in rest) == len(rest)  # the rest is the bank's


def test_moderation_is_a_403_before_any_byte_with_openrouters_moderation_metadata(simulate):
    sim = faulty(simulate, "moderation", reasons=["violence", "harassment"])
    long_turn = "*I open the tavern door.* " + "The rain keeps falling on the cobbles. " * 5 + "Continue the scene."
    body = chat_body("test/fp8")
    body["messages"][-1]["content"] = long_turn

    result = stream_chat(sim.base_url, body)

    assert result.status == 403 and not result.chunks
    error = result.error_body["error"]
    assert error["code"] == 403 and "flagged" in error["message"]
    meta = error["metadata"]
    assert meta["reasons"] == ["violence", "harassment"]
    assert meta["provider_name"] == "Testhost" and meta["model_slug"] == MODEL
    flagged = meta["flagged_input"]
    assert len(flagged) <= 100 and "..." in flagged  # cut in the middle, as documented
    assert long_turn.startswith(flagged.split("...")[0]) and long_turn.endswith(flagged.split("...")[1])


def test_reset_before_response_drops_the_first_request_of_a_conversation_without_a_byte(simulate):
    sim = faulty(simulate, "reset_before_response", times=1)
    body = chat_body("test/fp8")

    with pytest.raises((httpx.RemoteProtocolError, httpx.ReadError)):  # nothing arrived, not even a status
        stream_chat(sim.base_url, body)
    again = stream_chat(sim.base_url, body)

    assert again.status == 200 and again.done and again.text
    assert len([r for r in sim.received if r.path.endswith("/chat/completions")]) == 2


def _reasoning_of(chunks: list[dict]) -> tuple[str, list[dict]]:
    deltas = [c["choices"][0]["delta"] for c in chunks if c.get("choices")]
    text = "".join(d["reasoning"] for d in deltas if isinstance(d.get("reasoning"), str))
    return text, [x for d in deltas for x in d.get("reasoning_details") or []]


def _usage(result) -> dict:
    return next(c["usage"] for c in result.chunks if c.get("usage"))


def test_thinking_streams_readable_reasoning_before_the_answer_and_bills_it(simulate):
    sim = faulty(simulate, "thinking", tokens=60)

    result = stream_chat(sim.base_url, chat_body("test/fp8", max_tokens=1000))

    thought, details = _reasoning_of(result.chunks)
    assert thought and all(d["type"] == "reasoning.text" for d in details)
    first_reasoning = next(i for i, c in enumerate(result.chunks)
                           if c.get("choices") and c["choices"][0]["delta"].get("reasoning"))
    first_text = next(i for i, c in enumerate(result.chunks)
                      if c.get("choices") and c["choices"][0]["delta"].get("content"))
    assert first_reasoning < first_text and result.finish_reason == "stop" and result.text
    usage = _usage(result)
    assert usage["completion_tokens_details"]["reasoning_tokens"] == 60
    assert usage["completion_tokens"] > 60  # thinking and answer share the completion


def test_thinking_longer_than_max_tokens_answers_nothing(simulate):
    # No reasoning option and a small budget: it thinks until max_tokens, as real reasoning models do.
    sim = faulty(simulate, "thinking", tokens=400)

    result = stream_chat(sim.base_url, chat_body("test/fp8", max_tokens=50))

    assert result.text == "" and result.finish_reason == "length"
    assert _usage(result)["completion_tokens_details"]["reasoning_tokens"] == 50


@pytest.mark.parametrize("reasoning, max_tokens, thought", [
    ({"effort": "low"}, 1200, 240),       # low: 0.2 of max_tokens
    ({"effort": "high"}, 200, 160),       # high: 0.8 of max_tokens
    ({"max_tokens": 100}, 1000, 100),     # an explicit thinking budget
    ({"effort": "none"}, 1000, 0),        # reasoning off
    ({"enabled": False}, 1000, 0),
    ({"enabled": True}, 1000, 400),       # on with defaults: as long as it naturally thinks
], ids=["effort-low", "effort-high", "budget", "effort-none", "disabled", "enabled"])
def test_thinking_follows_the_requested_reasoning_budget(simulate, reasoning, max_tokens, thought):
    sim = faulty(simulate, "thinking", tokens=400)

    result = stream_chat(sim.base_url, chat_body("test/fp8", max_tokens=max_tokens, reasoning=reasoning))

    assert result.status == 200 and result.text  # what the thinking left of max_tokens went to the answer
    assert _usage(result)["completion_tokens_details"]["reasoning_tokens"] == thought


def test_thinking_excluded_from_the_reply_still_takes_its_tokens(simulate):
    sim = faulty(simulate, "thinking", tokens=80)

    result = stream_chat(sim.base_url, chat_body("test/fp8", max_tokens=1000,
                                                 reasoning={"effort": "high", "exclude": True}))

    assert _reasoning_of(result.chunks) == ("", [])
    assert result.text and _usage(result)["completion_tokens_details"]["reasoning_tokens"] == 80


def test_unreadable_thinking_arrives_as_one_encrypted_chunk_like_openai_o_series(simulate):
    sim = faulty(simulate, "thinking", tokens=40, readable=False)

    result = stream_chat(sim.base_url, chat_body("test/fp8", max_tokens=1000))

    thought, details = _reasoning_of(result.chunks)
    assert thought == "" and [d["type"] for d in details] == ["reasoning.encrypted"]
    assert details[0]["format"] == "openai-responses-v1" and details[0]["data"]
    assert result.text


def test_thinking_in_a_non_streamed_reply_is_the_messages_reasoning(simulate):
    sim = faulty(simulate, "thinking", tokens=40)

    resp = httpx.post(f"{sim.base_url}/chat/completions", headers=KEY, timeout=20,
                      json=chat_body("test/fp8", stream=False, max_tokens=1000))

    message = resp.json()["choices"][0]["message"]
    assert message["reasoning"] and message["reasoning_details"][0]["type"] == "reasoning.text"
    assert message["content"] and resp.json()["usage"]["completion_tokens_details"]["reasoning_tokens"] == 40


def test_thinking_not_itemised_is_counted_in_the_completion_tokens_without_reasoning_tokens(simulate):
    sim = faulty(simulate, "thinking", tokens=40, itemised=False)

    result = stream_chat(sim.base_url, chat_body("test/fp8", max_tokens=1000))

    assert _reasoning_of(result.chunks)[0] and "reasoning_tokens" not in _usage(result)["completion_tokens_details"]
    assert _usage(result)["completion_tokens"] > 40


def test_a_trait_cannot_be_given_a_rate():
    from simulator import ScenarioError, scenario_from_dict

    with pytest.raises(ScenarioError, match="thinking.rate"):
        scenario_from_dict(one_endpoint_scenario({"thinking": {"rate": 0.5}}))


def test_every_fault_in_the_catalogue_has_a_test():
    here = Path(__file__).parent
    sources = (here / "test_faults.py", here / "test_hostile_faults.py", here / "test_defect_faults.py",
               here / "test_tool_faults.py", here / "test_task_faults.py", here / "test_real_shape_traits.py",
               here / "test_router_metadata_faults.py")
    covered = {n for f in sources for n in re.findall(r'faulty\(simulate, "(\w+)"', f.read_text(encoding="utf-8"))}

    assert covered == set(FAULT_NAMES)


def test_a_fault_scoped_with_only_when_fires_only_on_requests_that_mention_its_text(simulate):
    sim = faulty(simulate, "refusal", only_when=["small inn"])
    scoped = chat_body("test/fp8")
    scoped["messages"] = [{"role": "system", "content": "You own a small inn."}, {"role": "user", "content": "Hi!"}]

    refused = stream_chat(sim.base_url, scoped).text
    story = stream_chat(sim.base_url, chat_body("test/fp8")).text

    assert refused in load_bank("en").refusals
    assert story not in PT.refusals and sentences_of(story, PT)


def test_a_fault_scoped_with_longer_than_fires_only_on_long_prompts(simulate):
    sim = faulty(simulate, "mojibake", longer_than=4000)
    long = chat_body("test/fp8")
    long["messages"] = [{"role": "system", "content": "A long character card. " * 200}, *long["messages"][1:]]

    garbled = stream_chat(sim.base_url, long)
    short = stream_chat(sim.base_url, chat_body("test/fp8"))

    assert garbled.headers["X-Sim-Faults"] == "mojibake" and unmojibake(garbled.text) != garbled.text
    assert short.headers["X-Sim-Faults"] == "none" and sentences_of(short.text, PT)


def test_only_when_is_refused_on_a_trait_and_must_be_a_list_of_strings():
    from simulator import ScenarioError, scenario_from_dict

    with pytest.raises(ScenarioError, match="thinking.only_when"):
        scenario_from_dict(one_endpoint_scenario({"thinking": {"only_when": ["x"]}}))
    with pytest.raises(ScenarioError, match="refusal.only_when"):
        scenario_from_dict(one_endpoint_scenario({"refusal": {"rate": 1.0, "only_when": "inn"}}))
    with pytest.raises(ScenarioError, match="slow_first_token.longer_than"):
        scenario_from_dict(one_endpoint_scenario({"slow_first_token": {"longer_than": 10}}))


@pytest.mark.parametrize("body", ["provider", "availability", "no_code", "bare"])
def test_http_error_bodies_come_in_the_real_shapes(simulate, body):
    sim = faulty(simulate, "http_error", status=403, body=body)

    error = stream_chat(sim.base_url, chat_body("test/fp8")).error_body["error"]

    assert ("code" in error) is (body in ("provider", "bare"))
    assert ("provider_name" in error.get("metadata", {})) is (body in ("provider", "no_code"))
    if body == "provider":
        assert "unsupported_country_region_territory" in error["metadata"]["raw"]
    if body == "availability":
        assert error["availability"]["code"] == "region_restricted" and error["http_status"] == 403


def test_http_error_in_band_commits_the_200_then_sends_the_error_as_the_first_event(simulate):
    sim = faulty(simulate, "http_error", status=429, in_band=True)

    result = stream_chat(sim.base_url, chat_body("test/fp8"))

    assert result.status == 200 and result.comments >= 1 and result.done and not result.text
    [chunk] = result.errors
    assert chunk["error"]["code"] == 429 and chunk["choices"][0]["finish_reason"] == "error"


@pytest.mark.parametrize("where", ["status", "stream"])
def test_filter_error_is_a_typed_400_or_an_in_stream_error_after_some_text(simulate, where):
    sim = faulty(simulate, "filter_error", error_type="refusal", where=where)

    result = stream_chat(sim.base_url, chat_body("test/fp8"))

    if where == "status":
        assert result.status == 400 and result.error_body["error"]["metadata"]["error_type"] == "refusal"
    else:
        [chunk] = result.errors
        assert result.status == 200 and result.text and chunk["error"]["metadata"]["error_type"] == "refusal"


@pytest.mark.parametrize("typed", [False, True])
def test_length_then_error_finishes_on_length_then_sends_the_token_limit_error(simulate, typed):
    sim = faulty(simulate, "length_then_error", typed=typed)

    result = stream_chat(sim.base_url, chat_body("test/fp8"))

    [chunk] = result.errors
    assert result.finish_reason == "length" and result.text and result.done
    assert chunk["error"] == {"code": 400, "message": "Token limit reached",
                              **({"metadata": {"error_type": "max_tokens_exceeded"}} if typed else {})}
    assert chunk["usage"]["completion_tokens"] > 0


# -- issue 28: errors relayed from a provider, in their real shapes ---------------------------------

@pytest.mark.parametrize(("shape", "words"), [("permission_denied", '"code":"permission-denied"'),
                                              ("usage_guidelines", "Failed check: SAFETY_CHECK_TYPE_BIO")])
def test_relayed_refusal_is_a_providers_403_carrying_its_own_words_in_raw(simulate, shape, words):
    sim = faulty(simulate, "relayed_refusal", shape=shape)

    result = stream_chat(sim.base_url, chat_body("test/fp8"))

    assert result.status == 403 and "Retry-After" not in result.headers
    error = result.error_body["error"]
    assert (error["code"], error["message"]) == (403, "Provider returned error")
    assert error["metadata"]["provider_name"] == "Testhost" and error["metadata"]["is_byok"] is False
    assert words in error["metadata"]["raw"] and "error_type" not in error["metadata"]
    assert json.loads(error["metadata"]["raw"])["error"]


def test_tool_use_failed_is_groqs_400_relayed_with_the_rejected_call_in_raw(simulate):
    sim = faulty(simulate, "tool_use_failed")

    error = stream_chat(sim.base_url, chat_body("test/fp8")).error_body["error"]

    assert (error["code"], error["message"], error["metadata"]["provider_name"]) == (
        400, "Provider returned error", "Testhost")
    groq = json.loads(error["metadata"]["raw"])["error"]
    assert (groq["type"], groq["code"]) == ("invalid_request_error", "tool_use_failed")
    assert json.loads(groq["failed_generation"])["name"] == "repo_browser.open_file"


def test_tool_use_failed_in_the_stream_comes_after_the_thinking_with_nothing_answered(simulate):
    faults = {"tool_use_failed": {"rate": 1.0, "where": "stream"}, "thinking": {"tokens": 40}}
    sim = simulate(one_endpoint_scenario(faults), seed=11)

    result = stream_chat(sim.base_url, chat_body("test/fp8"))

    [chunk] = result.errors
    assert _reasoning_of(result.chunks)[0] and result.text == "" and result.done
    assert chunk["choices"][0]["finish_reason"] == "error" and "usage" not in chunk
    assert json.loads(chunk["error"]["metadata"]["raw"])["error"]["code"] == "tool_use_failed"


def test_a_relayed_402_names_the_provider_and_its_byok_key_while_openrouters_own_names_none(simulate):
    relayed = stream_chat(faulty(simulate, "http_error", status=402).base_url, chat_body("test/fp8")).error_body
    bare = faulty(simulate, "http_error", status=402, body="bare")
    own = stream_chat(bare.base_url, chat_body("test/fp8")).error_body

    meta = relayed["error"]["metadata"]
    assert meta["provider_name"] == "Testhost" and meta["is_byok"] is True and "Insufficient Balance" in meta["raw"]
    assert "metadata" not in own["error"] and "credits" in own["error"]["message"]


def test_a_relayed_429_without_retry_after_is_the_recorded_one(simulate):
    sim = faulty(simulate, "http_error", status=429, retry_after=None)

    result = stream_chat(sim.base_url, chat_body("test/fp8"))

    assert result.status == 429 and "Retry-After" not in result.headers
    raw = result.error_body["error"]["metadata"]["raw"]
    assert raw == (f"{MODEL} is temporarily rate-limited upstream. Please retry shortly, or add your own key to "
                   "accumulate your rate limits: https://openrouter.ai/settings/integrations")
