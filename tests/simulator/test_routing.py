"""Provider preferences are honoured the way OpenRouter honours them."""

from __future__ import annotations

from collections import Counter

import httpx
import pytest
from simkit import FAST, KEY, MODEL, chat_body, one_endpoint_scenario, stream_chat


def post(base_url: str, body: dict, headers: dict | None = KEY) -> httpx.Response:
    return httpx.post(f"{base_url}/chat/completions", json={**body, "stream": False}, headers=headers, timeout=10)


def served_by(base_url: str, provider: dict, conversation: str = "") -> str:
    body = chat_body()
    body["messages"][-1]["content"] += conversation   # another conversation, another draw
    response = post(base_url, {**body, "provider": provider})
    assert response.status_code == 200, response.text
    return response.json()["provider"]


def four_hosts(**overrides: dict) -> dict:
    """aurora/fp8 and aurora/bf16 (one provider, two variants), borealis, and iris without structured output."""
    def host(tag: str, name: str, **extra: object) -> dict:
        return {"tag": tag, "provider_name": name, "behaviour": dict(FAST), **extra, **overrides.get(tag, {})}

    return {"models": [{"id": MODEL, "endpoints": [
        host("aurora/fp8", "Aurora", pricing={"prompt": "0.0000003", "completion": "0.000001"}),
        host("aurora/bf16", "Aurora", pricing={"prompt": "0.0000004", "completion": "0.000001"}),
        host("borealis/bf16", "Borealis", pricing={"prompt": "0.0000001", "completion": "0.000001"}),
        host("iris/fp8", "Iris", supported_parameters=["max_tokens", "temperature", "seed"],
             pricing={"prompt": "0.0000002", "completion": "0.000001"}),
    ]}]}  # fmt: skip


def test_a_pinned_request_with_fallbacks_off_fails_with_its_endpoints_error_instead_of_landing_elsewhere(simulate):
    sim = simulate(one_endpoint_scenario({"http_error": {"rate": 1.0, "status": 502}}))

    results = [stream_chat(sim.base_url, chat_body("test/fp8")) for _ in range(5)]

    assert {r.status for r in results} == {502}
    assert {r.error_body["error"]["metadata"]["provider_name"] for r in results} == {"Testhost"}


def test_a_failing_endpoint_falls_back_to_the_next_one_when_fallbacks_are_allowed(simulate):
    sim = simulate(one_endpoint_scenario({"http_error": {"rate": 1.0, "status": 502}}))

    result = stream_chat(sim.base_url, {**chat_body(), "provider": {"order": ["test/fp8"]}})

    assert result.status == 200
    assert result.providers == {"Sparehost"}


def test_pinning_reaches_exactly_the_chosen_endpoint_every_time(simulate):
    sim = simulate(four_hosts())

    for tag, name in [("aurora/bf16", "Aurora"), ("borealis/bf16", "Borealis"), ("iris/fp8", "Iris")]:
        assert stream_chat(sim.base_url, chat_body(tag)).providers == {name}
    pinned = [r for r in sim.received if r.path.endswith("/chat/completions")]
    assert [r.provider["only"] for r in pinned] == [["aurora/bf16"], ["borealis/bf16"], ["iris/fp8"]]


def test_without_preferences_traffic_is_balanced_by_the_inverse_square_of_the_price(simulate):
    sim = simulate(four_hosts())

    served = Counter(served_by(sim.base_url, {}, conversation=str(i)) for i in range(120))

    # Weights 1/1.1², 1/1.2², 1/1.3² and 1/1.4² (USD per million tokens): every host serves, the cheapest most.
    assert served.keys() == {"Borealis", "Iris", "Aurora"} and served["Borealis"] > served["Iris"]
    assert served_by(sim.base_url, {}, conversation="7") == served_by(sim.base_url, {}, conversation="7")
    assert served_by(sim.base_url, {"allow_fallbacks": False}) == "Borealis"   # no fallbacks: the cheapest alone


def test_order_is_tried_first_and_in_sequence(simulate):
    sim = simulate(four_hosts())

    assert served_by(sim.base_url, {"order": ["iris/fp8", "borealis/bf16"]}) == "Iris"


def test_ignore_removes_an_endpoint_from_routing(simulate):
    sim = simulate(four_hosts())

    assert served_by(sim.base_url, {"ignore": ["borealis/bf16", "iris"]}) == "Aurora"


def test_only_restricts_routing_to_the_listed_endpoints(simulate):
    sim = simulate(four_hosts())

    assert served_by(sim.base_url, {"only": ["iris/fp8"]}) == "Iris"


def test_a_base_slug_matches_every_variant_of_that_provider(simulate):
    failing = {"behaviour": {**FAST, "faults": {"http_error": {"rate": 1.0, "status": 503}}}}
    sim = simulate(four_hosts(**{"aurora/fp8": failing}))

    # aurora/fp8 fails; the base slug also allows aurora/bf16, which then serves.
    assert served_by(sim.base_url, {"order": ["aurora"], "only": ["aurora"]}) == "Aurora"
    provider = {"only": ["aurora"], "ignore": ["aurora/bf16"], "allow_fallbacks": False}
    response = post(sim.base_url, {**chat_body(), "provider": provider})
    assert response.status_code == 503


def test_require_parameters_excludes_an_endpoint_that_does_not_list_response_format(simulate):
    sim = simulate(four_hosts())
    schema = {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object"}}}
    pinned = {**chat_body(), "response_format": schema, "provider": {"only": ["iris/fp8"], "require_parameters": True}}

    response = post(sim.base_url, pinned)

    assert response.status_code == 404
    assert response.json()["error"] == {
        "code": 404, "message": "No allowed providers are available for the selected model."}


def test_require_parameters_keeps_an_endpoint_that_lists_every_requested_parameter(simulate):
    sim = simulate(four_hosts())

    body = {**chat_body(), "max_tokens": 50, "seed": 1, "provider": {"only": ["iris/fp8"], "require_parameters": True}}

    assert post(sim.base_url, body).status_code == 200


def test_an_unknown_model_gets_no_endpoints_found(healthy):
    response = post(healthy.base_url, {**chat_body(), "model": "acme/nothing"})

    assert response.status_code == 404
    assert response.json()["error"]["message"] == "No endpoints found for acme/nothing."
    assert response.json()["user_id"]


@pytest.mark.parametrize("headers", [None, {"Authorization": "Bearer"}, {"Authorization": "Basic abc"}],
                         ids=["missing", "empty", "not-bearer"])
def test_a_request_without_a_bearer_key_is_refused_with_401(healthy, headers):
    response = post(healthy.base_url, chat_body(), headers=headers)
    listing = httpx.get(f"{healthy.base_url}/models", headers=headers)

    assert response.status_code == listing.status_code == 401
    assert response.json()["error"]["code"] == 401


@pytest.mark.parametrize(
    "body",
    [
        {"model": MODEL},
        {"model": MODEL, "messages": []},
        {"model": MODEL, "messages": [{"role": "user", "content": "hi"}], "response_format": {"type": "yaml"}},
        {"model": MODEL, "messages": [{"role": "user", "content": "hi"}], "response_format": {"type": "json_schema"}},
        {"model": MODEL, "messages": [{"role": "user", "content": "hi"}], "max_tokens": 0},
        {"model": MODEL, "messages": [{"role": "user", "content": "hi"}], "provider": {"only": "aurora"}},
    ],
    ids=["no-messages", "empty-messages", "unknown-format", "schema-missing", "zero-max-tokens", "only-not-a-list"],
)
def test_a_bad_body_gets_a_400_envelope(healthy, body):
    response = post(healthy.base_url, body)

    assert response.status_code == 400
    assert response.json()["error"]["code"] == 400


def test_a_body_that_is_not_json_gets_a_400(healthy):
    response = httpx.post(f"{healthy.base_url}/chat/completions", content=b"{nope", headers=KEY)

    assert response.status_code == 400
