"""The real OpenRouter's shapes the simulator learned (issue 19), each driven through the real client.

Each test turns one scenario switch on (docs/openrouter-wire.md names the doc section behind
each rule) and checks what the pinned client, and where it matters the contract, makes of it.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from client_support import MODEL, SECRET, chat, spec, upstream
from contracts_support import settings

from judge.replies import structured as structured_judge
from probes.http.records import Classification, ErrorKind
from probes.round.cases import ProbedCase
from probes.round.contracts import structured, transport_outcome
from probes.round.contracts.refusal import moderation_verdict


def one_fault(name: str, **params: Any) -> dict[str, Any]:
    return spec("aurora/fp8", {name: {"rate": 1, **params}})


# -- item 1: a 401/403 that names a provider or an availability code is the endpoint's ------------

@pytest.mark.parametrize("status", [401, 403])
def test_a_provider_401_or_403_relayed_by_openrouter_is_that_endpoints_transport_error(status: int) -> None:
    with upstream(one_fault("http_error", status=status, body="provider")) as sim:
        result = chat(sim)
    assert (result.classification, result.error_kind) == (Classification.TRANSPORT_ERROR, ErrorKind.PROVIDER_DENIED)
    assert result.http_status == status


def test_a_region_restricted_availability_error_without_a_code_is_that_endpoints_transport_error() -> None:
    with upstream(one_fault("http_error", status=403, body="availability")) as sim:
        result = chat(sim)
    assert (result.classification, result.error_kind) == (Classification.TRANSPORT_ERROR, ErrorKind.PROVIDER_DENIED)
    assert "region_restricted" in (result.error_message or "")


@pytest.mark.parametrize(("key", "classified"), [
    (None, (Classification.TRANSPORT_ERROR, ErrorKind.PROVIDER_DENIED)),  # GET /key accepts our key
    ({"refused": 403}, (Classification.AUTH_ERROR, ErrorKind.AUTH)),       # GET /key refuses it too
], ids=["get-key-accepts-the-key", "get-key-refuses-it"])
def test_a_bare_403_naming_no_provider_is_our_key_only_when_get_key_refuses_it_too(
        key: dict[str, Any] | None, classified: tuple[Classification, ErrorKind]) -> None:
    with upstream(one_fault("http_error", status=403, body="bare"), key=key) as sim:
        result = chat(sim)
        asked = [r for r in sim.received if r.path.endswith("/key")]
    assert (result.classification, result.error_kind) == classified and len(asked) == 1


def test_an_error_without_a_code_is_read() -> None:
    with upstream(one_fault("http_error", status=502, body="no_code")) as sim:
        result = chat(sim)
    assert (result.classification, result.error_kind) == (Classification.TRANSPORT_ERROR, ErrorKind.HTTP_5XX)
    assert "Provider returned error" in (result.error_message or "")


def test_an_error_after_the_first_keep_alive_arrives_in_band_and_is_a_mid_stream_error() -> None:
    with upstream(one_fault("http_error", status=502, in_band=True)) as sim:
        result = chat(sim)
    assert result.http_status == 200 and result.keepalives >= 1 and not result.text
    assert (result.classification, result.error_kind) == (Classification.TRANSPORT_ERROR, ErrorKind.MID_STREAM_ERROR)


# -- item 3: a token-limit error after the reply is a reply that finished on `length` --------------

@pytest.mark.parametrize("typed", [False, True])
def test_a_length_finish_followed_by_a_token_limit_error_is_a_completed_reply(typed: bool) -> None:
    with upstream(one_fault("length_then_error", typed=typed)) as sim:
        result = chat(sim)
    assert result.classification is Classification.COMPLETED and result.error_kind is None
    assert result.finish_reason == "length" and result.text
    assert "Token limit reached" in (result.error_message or "")


def test_a_provider_error_after_content_is_still_a_transport_error() -> None:
    with upstream(one_fault("mid_stream_error", code=502, shape="recorded")) as sim:
        result = chat(sim)
    assert (result.classification, result.error_kind) == (Classification.TRANSPORT_ERROR, ErrorKind.MID_STREAM_ERROR)


# -- item 4: a filter delivered as an error is the host's filter, never "unreachable" ---------------

@pytest.mark.parametrize("where", ["status", "stream"])
@pytest.mark.parametrize("error_type", ["content_policy_violation", "refusal"])
def test_a_typed_filter_error_is_a_filter_event_that_fails_refusal(where: str, error_type: str) -> None:
    with upstream(one_fault("filter_error", error_type=error_type, where=where)) as sim:
        result = chat(sim)
    assert (result.classification, result.error_kind) == (Classification.MODERATED, ErrorKind.FILTER_ERROR)
    assert result.flagged == (error_type,)
    assert result.http_status == (400 if where == "status" else 200)
    verdict = moderation_verdict(result)
    assert verdict is not None and verdict.failed and error_type in verdict.reason
    outcome, code, reason = transport_outcome(result)
    assert outcome.value == "inconclusive" and reason.startswith("filter:") and error_type in reason
    assert code == "filter_error"


# -- item 7: X-Provider-Name counts only when the body names no provider ----------------------------

@pytest.mark.parametrize("header", ["display", "slug", "tag", "Aurora Labs Inc."])
def test_an_x_provider_name_header_never_outvotes_the_body(header: str) -> None:
    with upstream(spec("aurora/fp8", provider_header=header)) as sim:
        result = chat(sim)
    assert result.classification is Classification.COMPLETED and result.served_by == "Aurora"
    disagrees = header not in ("display", "slug", "tag")
    assert bool(result.notes) is disagrees
    if disagrees:
        assert "X-Provider-Name 'Aurora Labs Inc.' disagrees" in result.notes[0]


def test_an_x_provider_name_header_still_names_the_server_of_a_body_that_names_none() -> None:
    with upstream(one_fault("http_error", status=502, body="bare") | {"provider_header": "Borealis"}) as sim:
        result = chat(sim)
    assert result.classification is Classification.ROUTING_MISMATCH and result.served_by == "Borealis"


# -- item 9: service_tier is recorded; a tier endpoint served at the default tier is a mismatch ------

def test_the_service_tier_of_the_response_is_recorded() -> None:
    with upstream(spec("aurora/fp8", reported_tier="default")) as sim:
        result = chat(sim)
    assert result.classification is Classification.COMPLETED and result.service_tier == "default"


def test_a_tier_endpoint_served_at_the_default_tier_is_a_routing_mismatch() -> None:
    with upstream(spec("aurora/priority", service_tier="priority", reported_tier="default"),
                  spec("aurora/fp8")) as sim:
        result = chat(sim, "aurora/priority")
    assert (result.classification, result.error_kind) == (Classification.ROUTING_MISMATCH, ErrorKind.ROUTING)
    assert "'default' service tier" in (result.error_message or "")


def test_a_tier_endpoint_served_at_its_tier_completes() -> None:
    with upstream(spec("aurora/priority", service_tier="priority"), spec("aurora/fp8")) as sim:
        result = chat(sim, "aurora/priority")
    assert result.classification is Classification.COMPLETED and result.service_tier == "priority"


def test_probe_traffic_carries_a_stable_user_and_claims_no_attribution() -> None:
    with upstream(spec("aurora/fp8")) as sim:
        chat(sim)
        chat(sim)
        requests = [r for r in sim.received if r.path.endswith("/chat/completions")]
    assert [r.body["user"] for r in requests] == ["canary-probe", "canary-probe"]
    # X-OpenRouter-Title "alone does not create an app page" (app-attribution): not sent.
    assert all("X-OpenRouter-Title" not in r.headers for r in requests)


# -- items 5 and 8: what the structured probe asks depends on what the endpoint promises -------------

def structured_case(*endpoints: dict[str, Any], tag: str = "aurora/fp8") -> tuple[ProbedCase, list[dict[str, Any]]]:
    from core.upstream import Upstream
    from probes.http.client import PinnedClient
    from probes.http.discovery import discover
    from probes.round.cases import Case

    async def run(base_url: str) -> ProbedCase:
        async with PinnedClient(Upstream(base_url=base_url, api_key=SECRET), deadline_s=3.0) as client:
            endpoint = next(e for e in await discover(client, MODEL) if e.provider == tag)
            return await structured.probe(client, endpoint, settings(), Case(model=MODEL, contract="structured",
                                                                             endpoint=endpoint))
    with upstream(*endpoints) as sim:
        result = asyncio.run(run(sim.base_url))
        bodies = [r.body for r in sim.received if r.path.endswith("/chat/completions")]
    return result, bodies


def test_an_endpoint_that_only_promises_json_mode_gets_a_json_mode_check() -> None:
    result, (body,) = structured_case(spec("aurora/fp8", supported_parameters=["max_tokens", "response_format"]))
    assert body["response_format"] == {"type": "json_object"}
    assert result.outcome.value == "pass" and "JSON mode only" in result.reason


def test_an_endpoint_that_promises_structured_outputs_gets_the_strict_schema() -> None:
    result, (body,) = structured_case(spec("aurora/fp8", supported_parameters=[
        "max_tokens", "response_format", "structured_outputs"]))
    assert body["response_format"]["type"] == "json_schema" and body["response_format"]["json_schema"]["strict"]
    assert result.outcome.value == "pass" and "JSON mode" not in result.reason


def test_the_strict_schema_sent_is_the_portable_subset_a_strict_mode_accepts() -> None:
    result, (body,) = structured_case(spec("aurora/fp8", strict_schema="portable"))
    sent = json.dumps(body["response_format"]["json_schema"]["schema"])
    assert not any(k in sent for k in ("minLength", "minimum", "maxItems"))
    assert result.outcome.value == "pass"


def test_the_local_judge_still_checks_the_bounds_the_request_left_out() -> None:
    _, _, schema = structured.request()
    verdict = structured_judge.assess(json.dumps({"name": "", "age": -1, "mood": "wary", "items": []}), schema)
    assert verdict.failed


def test_the_simulator_strict_mode_refuses_an_unportable_keyword() -> None:
    with upstream(spec("aurora/fp8", strict_schema="portable")) as sim:
        fmt = {"type": "json_schema", "json_schema": {"name": "x", "strict": True, "schema": {
            "type": "object", "properties": {"age": {"type": "integer", "minimum": 0}}}}}
        result = chat(sim, response_format=fmt)
    # A 400 before any byte: the host frozen over our schema, which is why the probe sends the
    # portable subset (the test above).
    assert result.http_status == 400 and result.error_kind is ErrorKind.HTTP_4XX


# -- item 2: a bare tag pins only its own endpoint --------------------------------------------------

def test_a_bare_tags_outage_is_not_hidden_by_a_sibling_variant() -> None:
    # `only: ["aurora"]` matches aurora/turbo too: without the siblings in `ignore`, the healthy
    # variant would answer for the failing bare endpoint (a completed reply, the outage unseen).
    with upstream(spec("aurora", {"http_error": {"rate": 1, "status": [502]}}, provider_name="Aurora"),
                  spec("aurora/turbo", provider_name="Aurora"),
                  spec("aurora/priority", provider_name="Aurora", service_tier="priority")) as sim:
        result = chat(sim, "aurora")
        (body,) = [r.body for r in sim.received if r.path.endswith("/chat/completions")]
    assert body["provider"]["only"] == ["aurora"] and body["provider"]["ignore"] == ["aurora/turbo"]
    assert (result.classification, result.error_kind) == (Classification.TRANSPORT_ERROR, ErrorKind.HTTP_5XX)


def test_a_variant_tag_needs_no_ignore_list() -> None:
    with upstream(spec("aurora", provider_name="Aurora"), spec("aurora/turbo", provider_name="Aurora")) as sim:
        result = chat(sim, "aurora/turbo")
        (body,) = [r.body for r in sim.received if r.path.endswith("/chat/completions")]
    assert result.completed and "ignore" not in body["provider"]


def test_a_bare_401_while_get_key_says_the_key_is_good_is_that_endpoints() -> None:
    # "When in doubt, ask OpenRouter": the simulator's GET /key answers 200 for our key.
    with upstream(one_fault("http_error", status=401, body="bare")) as sim:
        result = chat(sim)
        asked = [r for r in sim.received if r.path.endswith("/key")]
    assert (result.classification, result.error_kind) == (Classification.TRANSPORT_ERROR, ErrorKind.PROVIDER_DENIED)
    assert "our key is good" in (result.error_message or "") and len(asked) == 1


def test_a_401_for_a_missing_key_stays_ours_when_get_key_refuses_it_too() -> None:
    with upstream(spec("aurora/fp8")) as sim:
        result = chat(sim, key=None)
    assert (result.classification, result.error_kind) == (Classification.AUTH_ERROR, ErrorKind.AUTH)
