"""Item 6 of issue 19: reasoning controls only where the model thinks anyway, as the product calls it.

A hybrid model (thinking off by default; the models API says `reasoning.default_enabled: false`)
would think because the probe sent an effort, and the latency probe would time that thinking.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest

from core.config import load_config
from core.upstream import Upstream
from probes.http.client import PinnedClient
from probes.http.records import ChatResult, Endpoint
from probes.http.wire import ReasoningBudget
from probes.round.planning import discover_plan
from simulator import RunningSimulator, scenario_from_dict, start_simulator

KEY = "sk-or-v1-hybrid-0123456789"
PARAMS = ["max_tokens", "temperature", "reasoning", "include_reasoning"]
MESSAGES = [{"role": "user", "content": "Continue the scene: the innkeeper greets the traveller."}]


def host(model: str, by_default: bool) -> dict[str, Any]:
    thinking = {"tokens": 300, "by_default": by_default}
    return {"id": model, "endpoints": [{"tag": "sage/fp8", "supported_parameters": PARAMS, "behaviour": {
        "ttft_ms": 0, "tokens_per_second": 5000, "faults": {"thinking": thinking}}}]}


def probe(sim: RunningSimulator, model: str, budget: ReasoningBudget) -> tuple[Endpoint, ChatResult, dict[str, Any]]:
    config = dataclasses.replace(load_config(None), models=(model,))
    upstream = Upstream(base_url=sim.base_url, api_key=KEY)
    (endpoint,) = discover_plan(config, upstream).endpoints[model]

    async def run() -> ChatResult:
        async with PinnedClient(upstream, reasoning_budget=budget, deadline_s=5.0) as client:
            return await client.chat(endpoint, MESSAGES, max_tokens=32, temperature=0.7)
    result = asyncio.run(run())
    body = [r.body for r in sim.received if r.path.endswith("/chat/completions")][-1]
    return endpoint, result, body


@pytest.fixture(scope="module")
def sim() -> Any:
    scenario = scenario_from_dict({"models": [host("acme/hybrid", False), host("acme/thinker", True)]})
    with start_simulator(scenario) as running:
        yield running


def test_a_hybrid_model_whose_thinking_is_off_by_default_is_probed_without_reasoning_controls(sim: Any) -> None:
    endpoint, result, body = probe(sim, "acme/hybrid", ReasoningBudget())
    assert endpoint.thinks_by_default is False
    assert "reasoning" not in body and "include_reasoning" not in body and body["temperature"] == 0.7
    assert body["max_tokens"] == 32  # no room for thinking added either
    assert result.completed and result.text and result.usage is not None and result.usage.reasoning_tokens == 0


def test_a_model_that_thinks_by_default_gets_the_controls_and_no_temperature(sim: Any) -> None:
    endpoint, result, body = probe(sim, "acme/thinker", ReasoningBudget())
    assert endpoint.thinks_by_default is True
    assert body["reasoning"] == {"effort": "low", "exclude": True} and "temperature" not in body
    assert result.completed and result.text


def test_always_sends_the_controls_as_a_product_that_sends_them_would(sim: Any) -> None:
    _, result, body = probe(sim, "acme/hybrid", ReasoningBudget(always=True))
    assert body["reasoning"] == {"effort": "low", "exclude": True} and "temperature" not in body
    assert result.usage is not None and result.usage.reasoning_tokens > 0  # the request turned thinking on
