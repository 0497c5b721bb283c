"""Every fault is observable over a real socket, at rate 1.0 on a pinned endpoint."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import httpx
import jsonschema
import pytest

from simkit import KEY, chat_body, one_endpoint_scenario, stream_chat
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
    assert result.chunks[-1]["usage"]["completion_tokens"] == len(result.text.encode()) // 4 + (len(result.text.encode()) % 4 > 0)


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


def test_every_fault_in_the_catalogue_has_a_test():
    covered = set(re.findall(r'faulty\(simulate, "(\w+)"', Path(__file__).read_text(encoding="utf-8")))

    assert covered == set(FAULT_NAMES)
