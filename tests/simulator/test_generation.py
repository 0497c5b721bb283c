"""The simulator answers who served a generation, and takes a user's feedback on one, as OpenRouter does."""

from __future__ import annotations

import httpx
from simkit import KEY, chat_body, one_endpoint_scenario, stream_chat


def test_a_generation_it_answered_names_the_provider_that_served_it(simulate):
    sim = simulate(one_endpoint_scenario())
    streamed = stream_chat(sim.base_url, chat_body("test/fp8"))
    body = httpx.post(f"{sim.base_url}/chat/completions", json=chat_body("spare/fp8", stream=False), headers=KEY,
                      timeout=10).json()

    for gen_id, name in ((streamed.chunks[0]["id"], "Testhost"), (body["id"], "Sparehost")):
        data = httpx.get(f"{sim.base_url}/generation", params={"id": gen_id}, headers=KEY).json()["data"]
        assert (data["id"], data["provider_name"]) == (gen_id, name)
        assert data["provider_responses"] == [{"provider_name": name, "status": 200,
                                               "model_permaslug": data["model"]}]


def test_an_unknown_generation_is_a_404_and_the_lookup_wants_a_key(simulate):
    sim = simulate(one_endpoint_scenario())

    assert httpx.get(f"{sim.base_url}/generation", params={"id": "gen-0-nope"}, headers=KEY).status_code == 404
    assert httpx.get(f"{sim.base_url}/generation", params={"id": "gen-0-nope"}).status_code == 401


def test_feedback_on_a_served_generation_is_taken_and_a_bad_one_refused(simulate):
    sim = simulate(one_endpoint_scenario())
    gen_id = stream_chat(sim.base_url, chat_body("test/fp8")).chunks[0]["id"]

    def post(body: dict) -> httpx.Response:
        return httpx.post(f"{sim.base_url}/generation/feedback", json=body, headers=KEY)

    ok = post({"generation_id": gen_id, "category": "incoherence", "comment": "switched language mid-reply"})
    refused = [post(body).status_code for body in (
        {"generation_id": gen_id, "category": "rude"},
        {"generation_id": gen_id, "category": "other", "comment": "x" * 1001},
        {"category": "other"})]

    assert ok.json() == {"data": {"success": True}}
    assert refused == [400, 400, 400]
    assert post({"generation_id": "gen-0-nope", "category": "latency"}).status_code == 404
