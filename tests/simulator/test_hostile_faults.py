"""The hostile faults (simulator/hostile.py) over a real socket, at rate 1.0 on a pinned endpoint."""

from __future__ import annotations

import json

import httpx
import pytest
from simkit import KEY, calls_of, chat_body, one_endpoint_scenario, stream_chat, tools_body

from simulator.hostile import EMOJI


def faulty(simulate, name: str, **params: object):
    return simulate(one_endpoint_scenario({name: {"rate": 1.0, **params}}), seed=11)


def raw_events(base_url: str, body: dict[str, object]) -> list[str]:
    resp = httpx.post(f"{base_url}/chat/completions", json=body, headers=KEY, timeout=20)
    return [line[6:] for line in resp.text.splitlines() if line.startswith("data: ")]


def test_echo_headers_puts_the_authorization_header_into_the_text_ignoring_max_tokens(simulate):
    sim = faulty(simulate, "echo_headers")

    result = stream_chat(sim.base_url, chat_body("test/fp8", max_tokens=5))

    assert KEY["Authorization"] in result.text and result.finish_reason == "stop"


def test_echo_headers_into_provider_names_the_key_as_the_provider_of_every_chunk(simulate):
    sim = faulty(simulate, "echo_headers", into="provider")

    result = stream_chat(sim.base_url, chat_body("test/fp8"))

    assert result.providers == {KEY["Authorization"].partition(" ")[2]}


def test_deep_json_in_the_content_is_a_thousand_nested_arrays(simulate):
    sim = faulty(simulate, "deep_json")

    result = stream_chat(sim.base_url, chat_body("test/fp8"))

    assert result.text == "[" * 1000 + "]" * 1000


def test_deep_json_into_chunk_nests_a_field_of_every_data_event(simulate):
    sim = faulty(simulate, "deep_json", depth=300, into="chunk")

    events = raw_events(sim.base_url, chat_body("test/fp8"))

    assert all(e.startswith('{"nested": ' + "[" * 300 + "]" * 300) for e in events if e != "[DONE]")


def test_split_surrogates_sends_each_emoji_as_two_halves_in_two_chunks(simulate):
    sim = faulty(simulate, "split_surrogates", lone=True)

    events = raw_events(sim.base_url, chat_body("test/fp8"))

    chunks = [json.loads(e) for e in events if e != "[DONE]"]
    deltas = [c["choices"][0]["delta"].get("content") or "" for c in chunks if c.get("choices")]
    text = "".join(deltas)
    assert EMOJI not in text and "\ud83d\ude00" in text  # two code points: json does not pair them
    assert any(d.endswith("\ud83d") for d in deltas) and any(d.startswith("\ude00") for d in deltas)
    assert text.count("\ud83d") == text.count("\ude00") + 1  # the lone half


def test_no_space_sends_64k_characters_without_a_space_in_a_few_chunks(simulate):
    sim = faulty(simulate, "no_space")

    result = stream_chat(sim.base_url, chat_body("test/fp8", max_tokens=5))

    assert len(result.text) == 65536 and " " not in result.text and len(result.chunks) < 40


def test_huge_bill_bills_1e308_in_the_usage_chunk(simulate):
    sim = faulty(simulate, "huge_bill")

    events = raw_events(sim.base_url, chat_body("test/fp8"))

    usage = [json.loads(e)["usage"] for e in events if e != "[DONE]" and json.loads(e).get("usage")]
    assert usage and usage[-1]["cost"] == 1e308 and '"cost": 1e308' in events[-2]


def test_huge_bill_as_an_integer_writes_every_digit_as_json_number_text(simulate):
    sim = faulty(simulate, "huge_bill", cost="integer", digits=400)

    events = raw_events(sim.base_url, chat_body("test/fp8"))
    body = httpx.post(f"{sim.base_url}/chat/completions", json=chat_body("test/fp8", stream=False),
                      headers=KEY, timeout=20).json()

    costs = [json.loads(e)["usage"]["cost"] for e in events if e != "[DONE]" and json.loads(e).get("usage")]
    assert costs == [int("9" * 400)] and body["usage"]["cost"] == int("9" * 400)


def test_compressed_stream_is_a_small_gzip_body_of_many_keepalives_then_the_reply(simulate):
    import gzip

    sim = faulty(simulate, "compressed_stream", decoded_kb=1024)

    with httpx.stream("POST", f"{sim.base_url}/chat/completions", json=chat_body("test/fp8"),
                      headers={**KEY, "Accept-Encoding": "identity"}, timeout=20) as resp:
        raw = b"".join(resp.iter_raw())

    decoded = gzip.decompress(raw)
    assert resp.headers["content-encoding"] == "gzip" and len(raw) < 16 * 1024  # small on the wire
    assert len(decoded) > 1000 * 1024 and decoded.count(b": OPENROUTER PROCESSING") > 40_000
    assert decoded.endswith(b"data: [DONE]\n\n") and b'"finish_reason": "stop"' in decoded


def test_tool_flood_splits_the_name_and_floods_empty_calls_only_on_a_tools_request(simulate):
    sim = faulty(simulate, "tool_flood", name_fragments=3000, calls=2500)

    result = stream_chat(sim.base_url, tools_body())
    plain = stream_chat(sim.base_url, chat_body("test/fp8"))

    calls = calls_of(result)
    flooded = [c for c in calls.values() if c["ids"][:1] and c["ids"][0].startswith("call_flood_")]
    assert calls[0]["name"].endswith("x" * 3000) and len(calls[0]["name"]) > 3000  # its own name, then 3000 x
    assert len(flooded) == 2500 and {c["arguments"] for c in flooded} == {""} and len(calls) > 2500
    assert "tool_calls" not in json.dumps(plain.chunks)


# echo_at_cut (issue 31): the key placed where the client cuts upstream text, so a cut made before
# masking would keep all of it but its last character.
SECRET = KEY["Authorization"].partition(" ")[2]


def test_echo_at_cut_into_error_ends_the_error_messages_first_300_characters_inside_the_key(simulate):
    sim = faulty(simulate, "echo_at_cut", into="error")

    result = stream_chat(sim.base_url, chat_body("test/fp8"))

    message = result.errors[0]["error"]["message"]
    assert SECRET in message and message[:300].endswith(SECRET[:-1]) and result.text == ""


def test_echo_at_cut_into_event_sends_a_data_event_that_is_not_json_with_the_key_at_its_120th_character(simulate):
    sim = faulty(simulate, "echo_at_cut", into="event")

    events = raw_events(sim.base_url, chat_body("test/fp8"))

    bad = [e for e in events if not e.startswith("{") and e != "[DONE]"]
    assert len(bad) == 1 and bad[0][:120].endswith(SECRET[:-1]) and events[-1] == "[DONE]"


def test_echo_at_cut_into_category_answers_a_moderation_403_whose_first_category_is_the_key(simulate):
    sim = faulty(simulate, "echo_at_cut", into="category")

    resp = httpx.post(f"{sim.base_url}/chat/completions", json=chat_body("test/fp8"), headers=KEY, timeout=20)

    assert resp.status_code == 403 and resp.json()["error"]["metadata"]["reasons"][0] == SECRET


def test_echo_at_cut_into_header_sends_an_x_provider_name_whose_first_60_characters_end_inside_the_key(simulate):
    sim = faulty(simulate, "echo_at_cut", into="header")

    result = stream_chat(sim.base_url, chat_body("test/fp8"))

    assert result.headers["x-provider-name"][:60].endswith(SECRET[:-1]) and result.finish_reason == "stop"


def test_echo_at_cut_into_tool_name_names_the_first_call_by_the_key_in_short_fragments(simulate):
    sim = faulty(simulate, "echo_at_cut", into="tool_name")
    tools = [{"type": "function", "function": {"name": "roll_dice", "parameters": {
        "type": "object", "properties": {"sides": {"type": "integer"}}, "required": ["sides"]}}}]

    result = stream_chat(sim.base_url, chat_body("test/fp8", tools=tools))

    names = [part["function"]["name"] for c in result.chunks for part in
             ((c.get("choices") or [{}])[0].get("delta", {}).get("tool_calls") or []) if part["function"].get("name")]
    assert "".join(names) == SECRET and max(len(n) for n in names) <= 10 and len(names) > 1


def test_echo_at_cut_into_text_cap_puts_the_key_across_the_64k_text_cap(simulate):
    sim = faulty(simulate, "echo_at_cut", into="text_cap")

    result = stream_chat(sim.base_url, chat_body("test/fp8"), timeout=60)

    assert result.text[:64 * 1024].endswith(SECRET[:-1]) and SECRET in result.text


def test_escape_codes_into_provider_names_them_as_the_provider_of_a_relayed_error(simulate):
    sim = faulty(simulate, "escape_codes", into="provider")

    resp = httpx.post(f"{sim.base_url}/chat/completions", json=chat_body("test/fp8"), headers=KEY, timeout=20)

    error = resp.json()["error"]
    assert resp.status_code == 502 and error["metadata"]["provider_name"] in error["message"]
    assert all(code in error["metadata"]["provider_name"] for code in ("\x1b]8;;", "\u202e", "\x07"))


@pytest.mark.parametrize(("form", "hidden"), [
    ("zero_width", "\u200b".join(SECRET)), ("soft_hyphen", "\u00ad".join(SECRET)), ("reversed", SECRET[::-1]),
    ("percent", "".join(f"%{b:02X}" for b in SECRET.encode())),
    ("u_escaped", "".join(f"\\u{ord(c):04x}" for c in SECRET)),
])
def test_echo_hidden_names_the_hidden_key_as_the_provider_of_a_relayed_error(simulate, form, hidden):
    sim = faulty(simulate, "echo_hidden", form=form)

    resp = httpx.post(f"{sim.base_url}/chat/completions", json=chat_body("test/fp8"), headers=KEY, timeout=20)

    error = resp.json()["error"]
    assert resp.status_code == 502 and error["metadata"]["provider_name"] == hidden and hidden in error["message"]


def test_escape_codes_sends_an_error_whose_message_clears_the_screen_retitles_links_and_reverses(simulate):
    sim = faulty(simulate, "escape_codes")

    result = stream_chat(sim.base_url, chat_body("test/fp8"))

    message = result.errors[0]["error"]["message"]
    assert all(code in message for code in ("\x1b[2J", "\x1b]0;", "\x1b]8;;", "\u202e", "\x07")) and result.text == ""
