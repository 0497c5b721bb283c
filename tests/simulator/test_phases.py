"""A scenario changes behaviour by round number or by clock, set at start or at runtime."""

from __future__ import annotations

from datetime import datetime

import httpx
from simkit import FAST, KEY, MODEL, chat_body, stream_chat

STORY = {
    "models": [{
        "id": MODEL,
        "endpoints": [
            {"tag": "story/fp8", "provider_name": "Story", "behaviour": dict(FAST), "phases": [
                {"from_round": 2, "to_round": 3, "faults": {"refusal": {"rate": 1.0}}},
                {"from_round": 4, "available": False},
                {"from_time": "2030-01-01T00:00:00Z", "faults": {"empty_reply": {"rate": 1.0}}},
            ]},
            {"tag": "other/fp8", "provider_name": "Other", "behaviour": dict(FAST)},
        ],
    }],
}  # fmt: skip


def faults_of(base_url: str) -> str:
    return stream_chat(base_url, chat_body("story/fp8")).headers.get("X-Sim-Faults", "")


def listed_tags(base_url: str) -> list[str]:
    data = httpx.get(f"{base_url}/models/{MODEL}/endpoints", headers=KEY).json()["data"]
    return [e["tag"] for e in data["endpoints"]]


def test_phases_apply_from_the_round_given_at_start(simulate):
    assert faults_of(simulate(STORY, round_number=1).base_url) == "none"
    assert faults_of(simulate(STORY, round_number=2).base_url) == "refusal"


def test_set_round_switches_phases_at_runtime(simulate):
    sim = simulate(STORY)

    seen = []
    for round_number in (1, 2, 3):
        sim.set_round(round_number)
        seen.append(faults_of(sim.base_url))

    assert seen == ["none", "refusal", "refusal"]


def test_an_unavailable_phase_removes_the_endpoint_from_listing_and_routing(simulate):
    sim = simulate(STORY, round_number=4)

    assert listed_tags(sim.base_url) == ["other/fp8"]
    assert stream_chat(sim.base_url, chat_body("story/fp8")).status == 404


def test_the_control_route_sets_the_round_and_the_clock(simulate):
    sim = simulate(STORY)
    control = sim.base_url.replace("/api/v1", "/_sim/control")

    assert httpx.post(control, json={"round": 3}).json()["round"] == 3
    assert faults_of(sim.base_url) == "refusal"
    httpx.post(control, json={"round": 1, "now": "2030-06-01T12:00:00Z"})
    assert faults_of(sim.base_url) == "empty_reply"
    assert httpx.post(control, json={"now": None}).json()["clock"] == "real"
    assert faults_of(sim.base_url) == "none"


def test_set_now_selects_phases_by_clock(simulate):
    sim = simulate(STORY)

    sim.set_now(datetime(2031, 1, 1))
    later = faults_of(sim.base_url)
    sim.set_now(None)

    assert (later, faults_of(sim.base_url)) == ("empty_reply", "none")


def test_the_control_route_rejects_a_bad_round(simulate):
    sim = simulate(STORY)

    response = httpx.post(sim.base_url.replace("/api/v1", "/_sim/control"), json={"round": "two"})

    assert response.status_code == 400
