"""The real client against REAL recorded OpenRouter traffic, served back byte for byte.

Every recorded chat-completion exchange of the corpus of real recordings (other projects' cassettes,
fetched by scripts/fetch_recordings.py: recorded_server.py names where; a missing corpus fails, it
never skips) is served from a raw socket server on 127.0.0.1 with its recorded status, content type
and body, streams one event per write. `PinnedClient.chat` is pinned to an endpoint whose
provider_name is the recording's own `provider`, so any routing mismatch would be the client's
mistake. The assertions are the rules of docs/openrouter-wire.md §3-§5, computed from the recorded chunks themselves.

A few tests derive a variant from a recording at run time (the same real chunk envelopes with
the reply text removed) for the one real shape the corpus lacks: a reasoning model
that spent its whole budget thinking. Nothing here asserts wall-clock durations; the one
timing rule (reasoning never starts the TTFT clock) is checked with a fake clock and by order.
"""

from __future__ import annotations

import asyncio
import copy
import json
from dataclasses import replace
from typing import Any

import pytest
from recorded_replay import SECRET, endpoint_for
from recorded_replay import drive as replay_drive
from recorded_server import (
    Interaction,
    cases,
    corpus,
    require_corpus,
    serve_recorded,
)

from core.upstream import Upstream
from judge.replies import language, refusal
from judge.replies.limits import assess_limits
from judge.replies.stream_integrity import assess_deltas
from probes.http.client import PinnedClient
from probes.http.records import ChatResult, Classification, Endpoint, ErrorKind
from probes.http.sse import SSEParser
from probes.http.stream import StreamState
from probes.round.reply_checks import ReplyFacts

INTERACTIONS = corpus()


def drive(it: Interaction, *, pieces: list[bytes] | None = None, endpoint: Endpoint | None = None,
          pauses: dict[int, float] | None = None) -> tuple[ChatResult, dict[str, Any]]:
    """One PinnedClient.chat against the recorded (or derived) response; (result, request body)."""
    return replay_drive(it, endpoint or endpoint_for(it), pieces=pieces, pauses=pauses)


def is_stream(it: Interaction) -> bool:
    return it.status == 200 and it.streamed_body


def with_text(it: Interaction) -> bool:
    """A reply with answer text (a tool-call turn may carry none)."""
    if it.streamed_body:
        return any(c["choices"][0]["delta"].get("content") for c in it.chunks() if c.get("choices"))
    return bool(((it.json_body().get("choices") or [{}])[0].get("message") or {}).get("content"))


def is_text_stream(it: Interaction) -> bool:
    return is_stream(it) and with_text(it)


def is_json_reply(it: Interaction) -> bool:
    return it.status == 200 and not it.streamed_body


def is_text_json_reply(it: Interaction) -> bool:
    return is_json_reply(it) and with_text(it)


def _asked_in_english(it: Interaction) -> bool:
    # The fantasy cassettes' plain turn asks for "hi in Portuguese": that reply is not English.
    return it.status == 200 and with_text(it) and "Portuguese" not in json.dumps(it.request.get("messages"))


def is_error(it: Interaction) -> bool:
    return it.status != 200


def expected_stream(it: Interaction) -> dict[str, Any]:
    """What §3 says a client must make of the recorded chunks, computed from them."""
    chunks = it.chunks()
    deltas = [c["choices"][0]["delta"] for c in chunks if c.get("choices")]
    finishes = [c["choices"][0].get("finish_reason") for c in chunks if c.get("choices")]
    natives = [c["choices"][0].get("native_finish_reason") for c in chunks if c.get("choices")]
    usages = [c["usage"] for c in chunks if c.get("usage")]
    return {
        "text": "".join(d.get("content") or "" for d in deltas),
        "reasoning": "".join(d["reasoning"] for d in deltas if isinstance(d.get("reasoning"), str)),
        "finish": next(f for f in reversed(finishes) if f),
        "native": next(n for n in reversed(natives) if n),
        "usage": usages[-1],
        "chunks": len(chunks),
        "keepalives": sum(1 for p in it.events() if p.startswith(b":")),
        "id": chunks[0]["id"], "model": chunks[0]["model"],
    }


# --- every recorded exchange -------------------------------------------------------------------


@pytest.mark.parametrize("it", cases(is_text_stream))
def test_a_recorded_stream_is_assembled_exactly_as_the_chunks_say(it: Interaction) -> None:
    result, sent = drive(it)
    want = expected_stream(it)
    assert sent["stream"] is True and sent["provider"]["only"] == [endpoint_for(it).provider]
    assert result.classification is Classification.COMPLETED, result.error_message
    assert result.error_kind is None and result.http_status == 200
    assert result.text == want["text"] and result.text
    assert result.reasoning_text == want["reasoning"]
    # Last non-null finish wins: one recording repeats "stop" on the usage chunk, one sends null there.
    assert (result.finish_reason, result.native_finish_reason) == (want["finish"], want["native"])
    assert result.usage is not None
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (
        want["usage"]["prompt_tokens"], want["usage"]["completion_tokens"])
    assert result.usage.cost_usd == pytest.approx(want["usage"]["cost"])
    assert (result.chunks, result.keepalives) == (want["chunks"], want["keepalives"])
    assert result.served_by == it.provider() and result.served_model == want["model"]
    assert result.generation_id == want["id"]
    assert result.ttft_s is not None and result.first_event_s is not None
    assert result.first_event_s <= result.ttft_s <= result.total_s
    assert not result.reasoning_only and not result.truncated_by_client


@pytest.mark.parametrize("it", cases(is_text_json_reply))
def test_a_recorded_non_streamed_reply_parses(it: Interaction) -> None:
    result, sent = drive(it)
    body = it.json_body()
    choice = body["choices"][0]
    assert sent["stream"] is False
    assert result.classification is Classification.COMPLETED, result.error_message
    assert result.text == choice["message"]["content"] and result.text
    assert (result.finish_reason, result.native_finish_reason) == (choice["finish_reason"],
                                                                   choice["native_finish_reason"])
    assert result.usage is not None
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (
        body["usage"]["prompt_tokens"], body["usage"]["completion_tokens"])
    expected_cost = body["usage"].get("cost")
    assert result.usage.cost_usd == (pytest.approx(expected_cost) if expected_cost is not None else None)
    assert result.served_by == body["provider"] and result.served_model == body["model"]
    assert result.generation_id == body["id"] and result.ttft_s is None


@pytest.mark.parametrize("it", cases(is_error))
def test_a_recorded_rate_limit_from_the_pinned_provider_is_a_transport_error(it: Interaction) -> None:
    # The 429 names the pinned provider itself in error.metadata.provider_name: that is the
    # host being rate-limited upstream, not the pin failing, so it must not be a routing mismatch.
    result, _ = drive(it)
    error = it.json_body()["error"]
    assert it.status == 429
    assert result.classification is Classification.TRANSPORT_ERROR
    assert result.error_kind is ErrorKind.HTTP_429 and result.http_status == 429
    assert result.error_message is not None and error["message"] in result.error_message
    assert result.served_by == error["metadata"]["provider_name"] and not result.text


@pytest.mark.parametrize("it", cases(is_error))
def test_a_recorded_rate_limit_naming_another_provider_is_a_routing_mismatch(it: Interaction) -> None:
    # Same real body, but pinned elsewhere: the router sent the request to someone else.
    result, _ = drive(it, endpoint=endpoint_for(it, "DeepInfra"))
    assert result.classification is Classification.ROUTING_MISMATCH and result.error_kind is ErrorKind.ROUTING
    assert result.served_by == it.json_body()["error"]["metadata"]["provider_name"]
    assert result.error_message is not None and "HTTP 429" in result.error_message


# --- reasoning and the TTFT clock --------------------------------------------------------------


def _reasons(chunk: dict[str, Any]) -> bool:
    delta = chunk["choices"][0]["delta"] if chunk.get("choices") else {}
    return bool(delta.get("reasoning") or delta.get("reasoning_details"))


def _has_reasoning(it: Interaction) -> bool:
    """A stream with answer text whose reasoning starts before the text (some hosts send it after)."""
    if not is_text_stream(it):
        return False
    chunks = it.chunks()
    if any(c["choices"][0]["delta"].get("tool_calls") for c in chunks if c.get("choices")):
        return False  # a tool-call turn: its calls, not its text, are the reply
    first_text = next(i for i, c in enumerate(chunks) if c.get("choices") and c["choices"][0]["delta"].get("content"))
    return any(_reasons(c) for c in chunks[:first_text])


@pytest.mark.parametrize("it", cases(_has_reasoning))
def test_recorded_reasoning_chunks_never_start_the_ttft_clock(it: Interaction) -> None:
    # Fake clock: item i of the recorded stream arrives at t = i. TTFT must be the first
    # non-empty content, not the role chunk nor the (encrypted) reasoning chunk before it.
    state, parser, t = StreamState(), SSEParser(), 0
    first_content = None
    for piece in it.events():
        for item in parser.feed(piece):
            t += 1
            if first_content is None and '"content":"' in getattr(item, "data", "") \
                    and json.loads(item.data)["choices"][0]["delta"].get("content"):
                first_content = t
            if not state.feed(item, float(t)):
                break
    assert state.done and first_content is not None
    assert state.ttft_s == first_content and state.first_event_s is not None
    assert state.first_event_s < state.ttft_s


@pytest.mark.parametrize("it", cases(_has_reasoning))
def test_over_the_wire_the_ttft_comes_after_the_recorded_reasoning_chunk(it: Interaction) -> None:
    pieces = it.events()
    first_text = next(i for i, p in enumerate(pieces)
                      if p.startswith(b"data: {") and json.loads(p[6:])["choices"][0]["delta"].get("content"))
    result, _ = drive(it, pauses={first_text: 0.05})
    assert result.completed and result.first_event_s is not None and result.ttft_s is not None
    assert result.first_event_s < result.ttft_s  # order only: the reasoning chunk did not start it


def _reasoning_only(it: Interaction, *, plaintext: bool) -> list[bytes]:
    """The recorded stream with its reply removed: the budget ran out while thinking.

    plaintext=True turns each content piece into a `delta.reasoning` piece (the shape of
    models that stream readable thinking); plaintext=False drops the content pieces and keeps
    only what the recording sent for reasoning (OpenAI o-series: encrypted reasoning_details).
    Finish becomes "length" on the finish chunk; the usage chunk keeps its null/repeated finish.
    """
    out, finish_seen = [], False
    for piece in it.events():
        if not piece.startswith(b"data: {"):
            out.append(piece)
            continue
        chunk = json.loads(piece[6:])
        choice = chunk["choices"][0] if chunk.get("choices") else None
        if choice is not None:
            delta = choice["delta"]
            if delta.get("content"):
                if not plaintext:
                    continue
                delta["reasoning"], delta["content"] = delta["content"], ""
            if choice.get("finish_reason") and not finish_seen and not chunk.get("usage"):
                choice["finish_reason"], choice["native_finish_reason"] = "length", "max_output_tokens"
                finish_seen = True
            elif choice.get("finish_reason"):
                choice["finish_reason"] = "length"
        out.append(b"data: " + json.dumps(chunk, ensure_ascii=False).encode() + b"\n\n")
    assert finish_seen
    return out


@pytest.mark.parametrize("plaintext", [True, False], ids=["readable-reasoning", "encrypted-reasoning-only"])
@pytest.mark.parametrize("it", cases(_has_reasoning))
def test_a_reasoning_only_reply_that_hit_length_is_completed_and_flagged(it: Interaction, plaintext: bool) -> None:
    result, _ = drive(it, pieces=_reasoning_only(it, plaintext=plaintext))
    assert result.classification is Classification.COMPLETED, result.error_message
    assert result.text == "" and result.finish_reason == "length" and result.ttft_s is None
    assert result.reasoning_only, "budget spent thinking must not look like an empty reply from the host"
    deltas = [c["choices"][0]["delta"] for c in it.chunks() if c.get("choices")]
    readable = [d["reasoning"] if isinstance(d.get("reasoning"), str) else "" for d in deltas]
    if plaintext:  # each content piece became reasoning, in place
        assert result.reasoning_text == "".join(d.get("content") or r for d, r in zip(deltas, readable, strict=True))
    else:  # only what was recorded as reasoning is left: readable text where the host sent it, else none
        assert result.reasoning_text == "".join(readable)


def _hidden_reasoning(it: Interaction) -> bool:
    return is_text_json_reply(it) and not it.json_body()["choices"][0]["message"].get("tool_calls") and bool(
        ((it.json_body().get("usage") or {}).get("completion_tokens_details") or {}).get("reasoning_tokens"))


@pytest.mark.parametrize("it", cases(_hidden_reasoning))
def test_a_non_streamed_reply_with_hidden_reasoning_that_hit_length_is_reasoning_only(it: Interaction) -> None:
    # xAI Grok 4 (recorded): `reasoning: null`, only usage.completion_tokens_details.reasoning_tokens.
    body = copy.deepcopy(it.json_body())
    body["choices"][0]["message"]["content"] = ""
    body["choices"][0]["finish_reason"] = body["choices"][0]["native_finish_reason"] = "length"
    result, _ = drive(it, pieces=[json.dumps(body).encode()])
    assert result.completed and result.text == "" and result.finish_reason == "length"
    assert result.reasoning_only, "budget spent on hidden reasoning must not look like an empty reply"
    assert result.usage is not None and result.usage.reasoning_tokens > 0


def test_a_recorded_reply_with_text_is_never_reasoning_only() -> None:
    require_corpus()
    for it in INTERACTIONS:
        if it.status == 200 and with_text(it):
            result, _ = drive(it)
            assert result.text and not result.reasoning_only, it.name


# --- a real reasoning reply through the contracts -------------------------------------------------


class _NoControls:
    async def control_results(self, model: str) -> tuple[Any, ...]:
        return ()


async def _judge_language(text: str, lang: str) -> Any:
    return await asyncio.to_thread(language.assess, text, lang)


def _contract_on_recording(it: Interaction, contract: str) -> tuple[Any, list[dict[str, Any]]]:
    """One contract probe (the real client with the engine's reasoning budget) answered by the recording."""
    from core.config import ProbeSettings
    from probes.http.wire import ReasoningBudget
    from probes.round.cases import Case
    from probes.round.contracts import ContractSettings, latency, refusal, structured
    from probes.round.contracts import language as language_contract

    modules = {"latency": latency, "refusal": refusal, "structured": structured, "language": language_contract}
    base = endpoint_for(it)
    endpoint = replace(base, supported_parameters=("max_tokens", "reasoning", "include_reasoning", "response_format"))
    probe = ProbeSettings(max_tokens=200, language_confirmations=2,
                          temperature=0.7)
    settings = ContractSettings(probe=probe, controls=_NoControls(), judge_language=_judge_language,
                                missing_controls={})
    case = Case(model=endpoint.model, contract=contract, endpoint=endpoint,
                language="en" if contract == "language" else None)

    async def use(base_url: str) -> Any:
        budget = ReasoningBudget(probe.reasoning_effort, probe.reasoning_max_tokens)
        async with PinnedClient(Upstream(base_url=base_url, api_key=SECRET), deadline_s=10.0,
                                reasoning_budget=budget) as c:
            return await modules[contract].probe(c, endpoint, settings, case)

    result, served = asyncio.run(serve_recorded(it.events(), it.status, it.content_type, use))
    return result, served.requests


def _long_english_reasoning_reply(it: Interaction) -> bool:
    # The language judge needs a few sentences to say pass or fail; "5 and 6" is rightly inconclusive.
    return _has_reasoning(it) and _asked_in_english(it) and len(expected_stream(it)["text"]) >= 200


@pytest.mark.parametrize("contract, expected", [
    ("latency", "pass"),      # the first answer text, after the reasoning chunk, is on time
    ("refusal", "pass"),      # a plain self-introduction is no refusal
    ("structured", "fail"),   # prose where a JSON object was asked for
    ("language", "pass|fail"),  # English prompt, English answer: the verdict is the language judge's own
])
@pytest.mark.parametrize("it", cases(_long_english_reasoning_reply))
def test_a_replayed_real_reasoning_reply_with_answer_text_reaches_a_verdict(it: Interaction, contract: str,
                                                                            expected: str) -> None:
    # Issue 13 item 8: a reasoning reply that carries answer text must never be inconclusive.
    result, requests = _contract_on_recording(it, contract)
    assert result.outcome.value in expected.split("|"), result.reason
    assert all(r["reasoning"] == {"effort": "low", "exclude": True} for r in requests)
    assert all(r["max_tokens"] > 200 for r in requests)  # the answer keeps its budget beside the thinking


# --- the judges on real English text -------------------------------------------------------------


def _english_reply(it: Interaction) -> str:
    if it.streamed_body:
        return expected_stream(it)["text"]
    return it.json_body()["choices"][0]["message"]["content"]


def _judge_cases(judge: str) -> list[Any]:
    return [pytest.param(_english_reply(p.values[0]) if isinstance(p.values[0], Interaction) else p.values[0],
                         id=p.id, marks=p.marks) for p in cases(_asked_in_english)]


@pytest.mark.parametrize("text", _judge_cases("language"))
def test_the_language_judge_does_not_fail_real_english_replies(text: str) -> None:
    verdict = language.assess(text, "en")
    assert not verdict.failed, verdict.reason


@pytest.mark.parametrize("text", _judge_cases("refusal"))
def test_the_refusal_judge_does_not_fail_real_english_replies(text: str) -> None:
    verdict = refusal.assess(text, "stop")
    assert not verdict.failed, verdict.reason


@pytest.mark.parametrize("it", cases(is_stream))
def test_the_reply_checks_find_nothing_wrong_in_a_recorded_stream(it: Interaction) -> None:
    # Issue 22's false positives on real traffic: the real deltas (role-only first chunk, the
    # usage chunk repeating finish_reason or carrying null) are judged as the round judges them.
    # The limits are judged against the cap the *recorded* request carried (none of the four
    # did: then there is nothing to compare, which is the check's answer too).
    result, _ = drive(it)
    recorded = [d.get("content") for c in it.chunks() if c.get("choices") for d in [c["choices"][0]["delta"]]]
    assert list(result.deltas) == [d for d in recorded if isinstance(d, str) and d]
    assert assess_deltas(result.deltas) is None
    cap = it.request.get("max_completion_tokens") or it.request.get("max_tokens")
    facts = ReplyFacts.of(result, None)
    assert assess_limits(replace(facts.limits, cap=cap)) is None
    # Decode speed is measured where the reply can say (judged only against peers, in the judge):
    # a reasoning reply (o3's encrypted reasoning chunk) is set aside, a plain one measured.
    tps = facts.decode_tps()
    usage = result.usage
    if facts.limits.reasoning or usage is None or usage.completion_tokens < 25:
        assert tps is None
    else:
        assert tps is None or tps > 0  # None: the replay sent it faster than 50 ms of decoding
