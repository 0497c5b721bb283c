"""The wire defects (simulator/defects.py) over a real socket, at rate 1.0 on a pinned endpoint."""

from __future__ import annotations

import httpx
import pytest
from simkit import FAST, KEY, MODEL, chat_body, one_endpoint_scenario, stream_chat


def faulty(simulate, name: str, **params: object):
    return simulate(one_endpoint_scenario({name: {"rate": 1.0, **params}}), seed=11)


def deltas(result) -> list[str]:
    return [c["choices"][0]["delta"].get("content") or "" for c in result.chunks if c.get("choices")]


def usage(result) -> dict:
    return next(c["usage"] for c in result.chunks if c.get("usage"))


def test_cumulative_deltas_send_the_whole_text_so_far_in_every_delta(simulate):
    sim = faulty(simulate, "cumulative_deltas")

    sent = [d for d in deltas(stream_chat(sim.base_url, chat_body("test/fp8"))) if d]

    assert len(sent) > 3 and all(later.startswith(earlier) for earlier, later in zip(sent, sent[1:], strict=False))


def test_repeated_deltas_send_each_delta_twice_back_to_back(simulate):
    sim = faulty(simulate, "repeated_deltas")

    sent = [d for d in deltas(stream_chat(sim.base_url, chat_body("test/fp8"))) if d]

    assert len(sent) >= 4 and sent[0::2] == sent[1::2] and len(sent[0]) >= 16


def test_ignore_max_tokens_reports_factor_times_the_cap(simulate):
    sim = faulty(simulate, "ignore_max_tokens", factor=20)

    result = stream_chat(sim.base_url, chat_body("test/fp8", max_tokens=50))

    assert usage(result)["completion_tokens"] == 1000 and result.text


def test_early_length_cuts_the_reply_far_below_the_cap_and_says_length(simulate):
    sim = faulty(simulate, "early_length", ratio=0.2)

    result = stream_chat(sim.base_url, chat_body("test/fp8", max_tokens=1000))

    assert result.finish_reason == "length" and 0 < usage(result)["completion_tokens"] < 200 and result.text


def test_slow_decode_keeps_the_reply_and_the_advertised_throughput(simulate):
    # The pace itself is measured by tests/probes/round/test_decode_speed_round.py against healthy peers
    # (a ratio with wide margins); here: the same reply, and a listing that still advertises the
    # host's usual throughput (the point of the defect: slow for us, fast on paper).
    healthy = simulate(one_endpoint_scenario(), seed=11)
    expected = stream_chat(healthy.base_url, chat_body("test/fp8")).text
    sim = faulty(simulate, "slow_decode", factor=0.5)
    result = stream_chat(sim.base_url, chat_body("test/fp8"))
    assert result.text == expected and result.done
    listed = httpx.get(f"{sim.base_url}/models/{MODEL}/endpoints", headers=KEY).json()["data"]["endpoints"]
    throughput = next(e["throughput_last_30m"] for e in listed if e["tag"] == "test/fp8")
    assert throughput["p50"] == FAST["tokens_per_second"]


def listed_cost(sim, u: dict) -> float:
    """The usage at the endpoint's listed prices, as discovery shows them."""
    import httpx

    listing = httpx.get(f"{sim.base_url}/models/{MODEL}/endpoints", headers=KEY, timeout=10).json()
    pricing = next(e["pricing"] for e in listing["data"]["endpoints"] if e["tag"] == "test/fp8")
    return u["prompt_tokens"] * float(pricing["prompt"]) + u["completion_tokens"] * float(pricing["completion"])


def test_overbilling_bills_factor_times_the_listed_price_of_the_usage_it_reports(simulate):
    sim = faulty(simulate, "overbilling", factor=1.5)

    u = usage(stream_chat(sim.base_url, chat_body("test/fp8")))

    assert u["cost"] == pytest.approx(1.5 * listed_cost(sim, u))


def test_hidden_system_prompt_counts_and_bills_more_prompt_tokens_than_a_healthy_peer(simulate):
    sim = faulty(simulate, "hidden_system_prompt", tokens=400)

    hidden = usage(stream_chat(sim.base_url, chat_body("test/fp8")))
    healthy = usage(stream_chat(sim.base_url, chat_body("spare/fp8")))

    assert hidden["prompt_tokens"] == healthy["prompt_tokens"] + 400
    assert hidden["cost"] == pytest.approx(listed_cost(sim, hidden))  # billed honestly for what it counts


def test_no_stream_usage_ends_the_stream_without_its_usage_chunk(simulate):
    sim = faulty(simulate, "no_stream_usage")

    result = stream_chat(sim.base_url, chat_body("test/fp8"))

    assert result.done and result.text and not any(c.get("usage") for c in result.chunks)
    assert result.finish_reason == "stop"


def test_hidden_completion_tokens_bill_tokens_the_reply_never_carried(simulate):
    from simulator.replies import count_tokens

    sim = faulty(simulate, "hidden_completion_tokens", tokens=120)
    result = stream_chat(sim.base_url, chat_body("test/fp8"))

    u = usage(result)
    assert result.text and result.text.count(". ") == 0  # one sentence
    assert u["completion_tokens"] == count_tokens(result.text) + 120
    assert u["completion_tokens_details"]["reasoning_tokens"] == 0 and u["cost"] == listed_cost(sim, u)
