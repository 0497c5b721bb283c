"""The real OpenRouter's shapes the simulator learned (issue 19), each driven through the real client.

Each test turns one scenario switch on (docs/openrouter-wire.md names the doc section behind
each rule) and checks what the pinned client, and where it matters the contract, makes of it.
"""

from __future__ import annotations

from typing import Any

import pytest
from test_client import chat, spec, upstream

from probes.http.records import Classification, ErrorKind
from probes.round.contracts import transport_outcome
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


def test_a_bare_403_naming_no_provider_is_still_our_key() -> None:
    with upstream(one_fault("http_error", status=403, body="bare")) as sim:
        result = chat(sim)
    assert (result.classification, result.error_kind) == (Classification.AUTH_ERROR, ErrorKind.AUTH)


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
    outcome, reason = transport_outcome(result)
    assert outcome.value == "inconclusive" and reason.startswith("filter:") and error_type in reason


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
