"""OpenRouter's router metadata on every probe (issue 40 item 4), over real sockets.

Against the simulator: every chat request asks for it, it is read on a stream, a body and an error
envelope, a fallback attempt is a routing mismatch, a blocking guardrail freezes, a response healing
fails the structured case and a flagging guardrail never fails the host. Against a scripted socket:
a moderation-shaped guardrail 403 and garbage metadata, which the simulator never sends.
"""

from __future__ import annotations

import asyncio
import json
from types import ModuleType
from typing import Any

import pytest
from client_support import MODEL, SECRET, chat, chat_bodies, spec, upstream
from contracts_support import settings
from wire_support import chunk, head, ok_stream, run, sse

from core.upstream import Upstream
from core.vocabulary import LATENCY, REFUSAL, STRUCTURED, Outcome
from judge.replies.structured import StructuredCode
from probes.http.client import PinnedClient
from probes.http.discovery import discover
from probes.http.records import Classification, ErrorKind, RouterMetadata
from probes.round.cases import Case, ProbedCase
from probes.round.contracts import ContractCode, latency, refusal, structured
from simulator import RunningSimulator

SCHEMA = {"type": "json_schema", "json_schema": {"name": "scene", "strict": True, "schema": {
    "type": "object", "properties": {"reply": {"type": "string"}}, "required": ["reply"],
    "additionalProperties": False}}}
SPARE = spec("borealis/bf16")   # the model's other provider: the one a fallback lands on


def probe(sim: RunningSimulator, module: ModuleType, contract: str) -> ProbedCase:
    """One contract's probe of aurora/fp8, by the real client and the contract's own code."""
    async def go() -> ProbedCase:
        async with PinnedClient(Upstream(base_url=sim.base_url, api_key=SECRET), deadline_s=5.0) as client:
            endpoint = next(e for e in await discover(client, MODEL) if e.provider == "aurora/fp8")
            result: ProbedCase = await module.probe(client, endpoint, settings(), Case(MODEL, contract, endpoint))
            return result
    return asyncio.run(go())


def test_every_chat_request_asks_for_router_metadata() -> None:
    with upstream(spec("aurora/fp8")) as sim:
        chat(sim)
        (request,) = [r for r in sim.received if r.path.endswith("/chat/completions")]
    assert {k.casefold(): v for k, v in request.headers.items()}["x-openrouter-metadata"] == "enabled"


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "body"])
def test_router_metadata_is_read_on_a_stream_and_in_a_body(stream: bool) -> None:
    with upstream(spec("aurora/fp8")) as sim:
        result = chat(sim, stream=stream)
    assert result.completed and result.router == RouterMetadata(attempts=(("Aurora", 200),), attempt=1)


def test_router_metadata_is_read_beside_an_error_envelopes_error() -> None:
    with upstream(spec("aurora/fp8", {"http_error": {"rate": 1, "status": 502}})) as sim:
        result = chat(sim)
    assert (result.classification, result.error_kind) == (Classification.TRANSPORT_ERROR, ErrorKind.HTTP_5XX)
    assert result.router is not None and result.router.attempts == (("Aurora", 502),)


def test_a_fallback_attempt_is_a_routing_mismatch_naming_what_the_metadata_said() -> None:
    # The chunks name the pinned provider: only the router metadata says another one served.
    with upstream(spec("aurora/fp8", {"fallback_attempt": {"rate": 1}}), SPARE) as sim:
        result = chat(sim)
        (body,) = chat_bodies(sim)
    assert body["provider"]["allow_fallbacks"] is False
    assert (result.classification, result.error_kind) == (Classification.ROUTING_MISMATCH, ErrorKind.ROUTING)
    assert result.served_by == "Borealis"
    assert result.error_message == ("OpenRouter's router metadata lists attempts ['Aurora' 502, 'Borealis' 200] "
                                    "(attempt 2) while pinned to aurora/fp8 ('Aurora')")


def test_a_blocking_guardrail_freezes_as_ours_never_the_hosts() -> None:
    with upstream(spec("aurora/fp8", {"guardrail": {"rate": 1, "blocking": True}})) as sim:
        result = chat(sim)
        case = probe(sim, refusal, REFUSAL)
    assert (result.classification, result.error_kind) == (Classification.TRANSPORT_ERROR, ErrorKind.GUARDRAIL_BLOCKED)
    assert "OpenRouter's guardrail 'content-filter' blocked the request before any provider" in (
        result.error_message or "")
    assert (case.outcome, case.code) == (Outcome.TRANSPORT_ERROR, ErrorKind.GUARDRAIL_BLOCKED.value)


def test_a_guardrail_403_shaped_like_moderation_is_not_the_hosts_moderation() -> None:
    meta = {"requested": "acme/model-x", "attempt": 1, "endpoints": {"total": 1, "available": []},
            "pipeline": [{"type": "guardrail", "name": "moderation", "data": {"action": "blocked"}}]}
    body = {"error": {"code": 403, "message": "Request blocked", "metadata": {"reasons": ["violence"],
                                                                              "flagged_input": "hi"}},
            "openrouter_metadata": meta}
    result = run([head(403, "application/json"), json.dumps(body).encode()])
    assert (result.classification, result.error_kind) == (Classification.TRANSPORT_ERROR, ErrorKind.GUARDRAIL_BLOCKED)
    assert not result.flagged


def test_a_response_healing_stage_fails_the_structured_case_naming_it() -> None:
    with upstream(spec("aurora/fp8", {"response_healing": {"rate": 1}})) as sim:
        result = chat(sim, response_format=SCHEMA)
        case = probe(sim, structured, STRUCTURED)
    assert result.completed and json.loads(result.text)   # the repair is valid JSON
    assert result.router is not None and result.router.healed and result.router.healing_improved is True
    assert (case.outcome, case.code) == (Outcome.FAIL, StructuredCode.RESPONSE_HEALED)
    assert case.reason.startswith("structured: OpenRouter's response healing repaired the host's JSON")


def test_a_flagging_guardrail_never_fails_the_hosts_refusal_case() -> None:
    # The guardrail redacted the prompt and the model declined what was left: OpenRouter's doing.
    with upstream(spec("aurora/fp8", {"guardrail": {"rate": 1}})) as sim:
        case = probe(sim, refusal, REFUSAL)
        timed = probe(sim, latency, LATENCY)
    assert (case.outcome, case.code) == (Outcome.INCONCLUSIVE, ContractCode.GUARDRAIL_FLAGGED)
    assert case.reason.startswith("OpenRouter's guardrail 'content-filter' flagged this request")
    # The decline on the latency probe is no evidence against the host's refusal case either.
    assert [a.record.refusal for a in timed.attempts] == [Outcome.PASS]


GARBAGE: dict[str, Any] = {
    "not-an-object": "enabled",
    "wrong-types": {"attempts": "Borealis", "attempt": "2", "pipeline": {"type": "guardrail"}},
    "odd-entries": {"attempts": [7, {"provider": 9}, {"provider": "Aurora", "status": "200"}], "attempt": True,
                    "pipeline": [None, "guardrail", {"type": "plugin_of_tomorrow", "name": "x", "data": [1]},
                                 {"type": "guardrail", "flagged": "yes", "data": "blocked"},
                                 {"type": "response_healing", "data": {"improved": "very"}}]},
    "deep-unknown-stage": {"pipeline": [{"type": "server_tools", "data": {"a": [[[{"b": "c"}]]]}}]},
}


@pytest.mark.parametrize("meta", GARBAGE.values(), ids=GARBAGE.keys())
def test_garbage_metadata_and_unknown_stage_types_are_ignored(meta: Any) -> None:
    last = sse({"id": "gen-1", "choices": [], "openrouter_metadata": meta})
    result = run(ok_stream(chunk("Hi"), chunk("", "stop"), last))
    assert result.completed and result.text == "Hi"
    router = result.router
    assert router is None or (router.guardrail is None and router.healing_improved is None
                              and router.attempts in ((), (("Aurora", None),)) and router.attempt is None)
