"""Errors OpenRouter relays from a provider (issue 28 items 4 and 5), through the real client.

A provider's own error arrives as `"Provider returned error"` with `metadata.provider_name` and
`metadata.raw` (docs/openrouter-wire.md §5). What each one is: a refusal relayed as xAI's 403 is
the host's filter (the refusal contract fails naming it); a 402 naming a provider is that
endpoint's (a BYOK key out of balance), not our credits; a 429 naming a provider lowers that
endpoint's concurrency, not the round's. Each test drives the pinned client at the simulator (or,
for shapes the simulator has no reason to send, at a scripted socket server).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from client_support import MESSAGES, MODEL, SECRET, chat, spec, upstream
from wire_support import chunk, head, ok_stream, run, sse

from core.upstream import Upstream
from core.vocabulary import Outcome
from judge.replies.tools import judge_rejected
from probes.http.client import PinnedClient
from probes.http.discovery import discover
from probes.http.records import Classification, ErrorKind
from probes.round.contracts import transport_outcome
from probes.round.contracts.refusal import moderation_verdict
from probes.round.contracts.tools import request
from simulator import scenario_from_dict, start_simulator
from simulator.tool_calls import REJECTED_GENERATION, REJECTED_RAW

DECLINE = "I can't help with that request."


def one_fault(name: str, **params: Any) -> dict[str, Any]:
    return spec("aurora/fp8", {name: {"rate": 1, **params}})


def relayed(status: int, raw: object, provider: str | None = "Aurora") -> list[bytes]:
    """A scripted answer: OpenRouter's envelope of a provider's error (`raw` as the provider wrote it)."""
    metadata: dict[str, Any] = {"raw": raw if isinstance(raw, str) else json.dumps(raw), "is_byok": False}
    if provider is not None:
        metadata["provider_name"] = provider
    body = {"error": {"message": "Provider returned error", "code": status, "metadata": metadata}}
    return [head(status, "application/json"), json.dumps(body).encode()]


# -- item 4 (N4): a refusal relayed as a provider's 403 is the host's filter -------------------------

@pytest.mark.parametrize(("shape", "label"), [("permission_denied", "permission-denied"),
                                              ("usage_guidelines", "SAFETY_CHECK_TYPE_BIO")])
def test_a_refusal_relayed_as_a_provider_403_is_the_hosts_filter_and_fails_refusal(shape: str, label: str) -> None:
    with upstream(one_fault("relayed_refusal", shape=shape)) as sim:
        result = chat(sim)
    assert (result.classification, result.error_kind, result.http_status) == (
        Classification.MODERATED, ErrorKind.FILTER_ERROR, 403)
    assert result.flagged == (label,)
    verdict = moderation_verdict(result)
    assert verdict is not None and verdict.failed and f'"{label}"' in verdict.reason, verdict
    # The provider's own words decide; they never reach a reason (upstream text, shown as a fixed label).
    assert "help with that" not in verdict.reason and "Team:" not in verdict.reason
    outcome, code, reason = transport_outcome(result)  # every other contract: nothing to judge, never a fail
    assert outcome is Outcome.INCONCLUSIVE and reason.startswith("filter:") and code == "filter_error"


@pytest.mark.parametrize("raw", [
    # xAI's own 403 for a key or team without access: the same code, no decline.
    {"code": "permission-denied", "error": "Your team does not have permission to access model grok-4"},
    {"code": "permission-denied", "error": "permission denied: invalid API key"},
    # Decline wording without the code is too generic (pasky/muaddib keeps it out as well).
    {"code": "forbidden", "error": DECLINE},
    DECLINE,
    # A decline buried in a long text, or one that does not open the message.
    {"code": "permission-denied", "error": "Access check: " + DECLINE},
    {"code": "permission-denied", "error": DECLINE + " " + "x" * 300},
    # Gemini's key error: PERMISSION_DENIED, no decline.
    {"error": {"code": 403, "message": "Method doesn't allow unregistered callers.", "status": "PERMISSION_DENIED"}},
], ids=["team-access", "invalid-key", "decline-without-code", "bare-decline", "decline-not-opening",
        "decline-in-long-text", "gemini-key"])
def test_a_relayed_403_that_is_not_a_refusal_stays_the_providers_denial(raw: object) -> None:
    result = run(relayed(403, raw))
    assert (result.classification, result.error_kind) == (Classification.TRANSPORT_ERROR, ErrorKind.PROVIDER_DENIED)
    assert result.flagged == ()


@pytest.mark.parametrize("status", [400, 500, 502])
def test_a_relayed_refusal_under_another_status_is_no_filter_answer(status: int) -> None:
    result = run(relayed(status, {"code": "permission-denied", "error": DECLINE}))
    assert result.classification is Classification.TRANSPORT_ERROR and result.flagged == ()


def test_a_refusal_shaped_raw_naming_no_provider_is_still_our_key() -> None:
    # Without provider_name the 403 is OpenRouter's own about our key: a raw cannot make it a filter.
    result = run(relayed(403, {"code": "permission-denied", "error": DECLINE}, provider=None))
    assert (result.classification, result.error_kind) == (Classification.AUTH_ERROR, ErrorKind.AUTH)


def test_the_recorded_xai_refusal_is_read_as_the_muaddib_test_quotes_it() -> None:
    # Byte for byte the envelope pasky/muaddib tests/refusal-detection.test.ts quotes, under xAI's name.
    raw = '{"code":"permission-denied","error":"I can\'t help with that request."}'
    body = {"message": "Provider returned error", "code": 403,
            "metadata": {"raw": raw, "provider_name": "Aurora", "is_byok": False}}
    result = run([head(403, "application/json"), json.dumps({"error": body}).encode()])
    assert (result.classification, result.flagged) == (Classification.MODERATED, ("permission-denied",))


# -- item 5 (N5): a 402 naming a provider is that endpoint's, not our credits ------------------------

def test_a_402_relayed_from_a_provider_is_that_endpoints_transport_error() -> None:
    with upstream(one_fault("http_error", status=402, body="provider")) as sim:
        result = chat(sim)
    assert (result.classification, result.error_kind, result.http_status) == (
        Classification.TRANSPORT_ERROR, ErrorKind.PROVIDER_DENIED, 402)


# -- issue 37 item 2: OpenRouter's own 402 to one request the key cannot afford ---------------------

# $1 of the key's $10 left; 120 tokens at $0.10 may cost $12: OpenRouter's bare 402 ("requires more
# credits, or fewer max_tokens", metadata.provider_name null) to every request of this endpoint.
PRICEY = spec("aurora/fp8", pricing={"prompt": "0.0000003", "completion": "0.1"})
LIMITED = {"limit": 10, "usage": 9}


def test_a_bare_402_while_get_key_accepts_the_key_is_that_endpoints_and_get_key_is_asked_once() -> None:
    with upstream(PRICEY, key=LIMITED) as sim:
        _, results = asyncio.run(burst(sim.base_url, per_tag=4, overall=8))
        asked = [r for r in sim.received if r.path.endswith("/key")]
    assert len(results) == 12 and len(asked) == 1   # one GET /key for the client's twelve 402s
    for result in results:
        assert (result.classification, result.error_kind, result.http_status) == (
            Classification.TRANSPORT_ERROR, ErrorKind.KEY_LIMIT, 402)
        assert "requires more credits, or fewer max_tokens" in (result.error_message or "")
    outcome, code, _ = transport_outcome(results[0])
    assert (outcome, code) == (Outcome.TRANSPORT_ERROR, "key_limit")   # frozen, never a quality failure


@pytest.mark.parametrize("key", [{**LIMITED, "refused": 401}, {"limit": 10, "usage": 10}],
                         ids=["get-key-refuses-the-key", "get-key-reports-its-limit-spent"])
def test_a_bare_402_is_still_our_credits_when_get_key_refuses_the_key_or_reports_its_limit_spent(
        key: dict[str, Any]) -> None:
    with upstream(PRICEY, key=key) as sim:
        result = chat(sim)
    assert (result.classification, result.error_kind, result.http_status) == (
        Classification.AUTH_ERROR, ErrorKind.AUTH, 402)


# -- item 5 (N9): a provider's 429 lowers that provider's concurrency, not the round's ---------------

async def burst(base_url: str, *, per_tag: int, overall: int, rounds: int = 3) -> tuple[PinnedClient, list[Any]]:
    async with PinnedClient(Upstream(base_url=base_url, api_key=SECRET), deadline_s=5.0,
                            overall_concurrency=overall, per_provider_concurrency=per_tag) as client:
        endpoints = await discover(client, MODEL)
        results = []
        for _ in range(rounds):  # bursts of `per_tag` requests to every endpoint at once
            results += await asyncio.gather(*(client.chat(e, MESSAGES, max_tokens=40)
                                              for e in endpoints for _ in range(per_tag)))
        return client, results


def lowest_cap(client: PinnedClient, tag: str | None = None) -> int:
    """The lowest cap the 429s brought the round (or one endpoint) down to: the client's own limits."""
    limit = client._overall if tag is None else client._per_tag.get(tag)
    return limit.lowest if limit is not None else client.per_provider_concurrency


def test_a_429_relayed_from_a_provider_lowers_only_that_endpoints_cap() -> None:
    # The real 429s (pydantic-ai's cassette): provider_name, raw "temporarily rate-limited upstream",
    # no Retry-After. Half of busy's requests are limited; calm answers every one.
    sc = scenario_from_dict({"name": "relayed-429", "keepalive_ms": 50, "models": [{"id": MODEL, "endpoints": [
        spec("busy/fp8", {"http_error": {"rate": 0.5, "status": 429, "retry_after": None}}, ttft_ms=100),
        spec("calm/fp8", ttft_ms=100)]}]})
    with start_simulator(sc, seed=11) as sim:
        client, results = asyncio.run(burst(sim.base_url, per_tag=4, overall=8))
    limited = [r for r in results if r.error_kind is ErrorKind.HTTP_429]
    assert limited and all(r.provider == "busy/fp8" and r.waited_s is None for r in limited)
    assert lowest_cap(client) == 8                         # the round's cap untouched
    assert lowest_cap(client, "busy/fp8") < 4              # the limited provider's came down
    assert lowest_cap(client, "calm/fp8") == 4


def test_a_429_naming_no_provider_still_lowers_the_rounds_cap() -> None:
    # The scenario's rate_limit is the key's own: OpenRouter's envelope, no provider named.
    sc = scenario_from_dict({"name": "key-429", "keepalive_ms": 50, "rate_limit": {"concurrent": 2, "retry_after": 1},
                             "models": [{"id": MODEL, "endpoints": [spec(f"host-{i}/fp8", ttft_ms=200)
                                                                    for i in range(4)]}]})
    with start_simulator(sc, seed=11) as sim:
        client, _ = asyncio.run(burst(sim.base_url, per_tag=2, overall=4, rounds=1))
        assert sim.rate_limited > 0
    assert lowest_cap(client) < 4
    assert all(lowest_cap(client, f"host-{i}/fp8") == 2 for i in range(4))


# -- issue 37 item 6: Groq's `tool_use_failed`: the host's rejected call, kept for the tools contract ---

@pytest.mark.parametrize("where", ["status", "stream"])
def test_a_relayed_tool_use_failed_keeps_the_rejected_call_and_stays_a_transport_error(where: str) -> None:
    faults = {"tool_use_failed": {"rate": 1, "where": where}, "thinking": {"tokens": 40}}
    with upstream(spec("aurora/fp8", faults)) as sim:
        result = chat(sim)
    assert result.classification is Classification.TRANSPORT_ERROR and result.rejected_call == REJECTED_GENERATION
    assert result.error_kind is (ErrorKind.HTTP_4XX if where == "status" else ErrorKind.MID_STREAM_ERROR)
    assert bool(result.reasoning_text) is (where == "stream")   # streamed: the thinking came first


def test_groqs_own_error_event_in_a_stream_carries_the_rejected_call() -> None:
    # Unrelayed: the stream's error event is Groq's error itself (TanStack/ai#1172), after the thinking.
    groq = json.loads(REJECTED_RAW)["error"]
    result = run(ok_stream(chunk("", reasoning="Let me call the tool."), sse({"error": groq})))
    assert result.classification is Classification.TRANSPORT_ERROR and result.rejected_call == REJECTED_GENERATION


@pytest.mark.parametrize("generation, code", [
    ('<function=roll_dice>{"sides": 20}</function>', "tool_markup_leak"),  # Llama's markup: a Qwen3-Coder tag
    ('{"name": "roll_dice", "arguments": {"sides": 99}}', "schema_mismatch"),
    ('[{"name": "roll_dice", "arguments": {"sides": 20}}]', "tool_use_failed"),  # valid, and still an error
    ("The innkeeper nods.", "tool_use_failed"),
    ("", "tool_use_failed"),  # lucagrippa/obsidian-ai-tagger#34: an empty failed_generation
])
def test_a_rejected_generation_is_judged_as_the_hosts_call(generation: str, code: str) -> None:
    body: dict[str, Any] = {"error": {**json.loads(REJECTED_RAW)["error"], "failed_generation": generation}}
    relayed = {"error": {"code": 400, "message": "Provider returned error",
                         "metadata": {"raw": json.dumps(body), "provider_name": "Aurora"}}}
    result = run(ok_stream(sse(relayed)))
    assert result.rejected_call == generation
    verdict = judge_rejected(result.rejected_call, request()[2])
    assert verdict.failed and verdict.code == code and "tool_use_failed" in verdict.reason, verdict
