"""Item 10 of issue 19: one odd listing entry is dropped and reported, the model's others probed."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from core.config import load_config
from core.upstream import Upstream
from probes.round.planning import RoundPlan, discover_plan
from simulator import scenario_from_dict, start_simulator

MODEL = "acme/model-x"
GOOD = {"tag": "aurora/fp8", "behaviour": {"ttft_ms": 0}}


def plan_with(*extra: Any) -> RoundPlan:
    scenario = scenario_from_dict({"models": [{"id": MODEL, "endpoints": [GOOD, {"tag": "borealis/bf16"}],
                                               "extra_listing_entries": list(extra)}]})
    config = dataclasses.replace(load_config(None), models=(MODEL,))
    with start_simulator(scenario) as sim:
        return discover_plan(config, Upstream(base_url=sim.base_url, api_key="sk-or-v1-dropped-0123456789"))


@pytest.mark.parametrize("odd, why", [
    ("not an entry", "not an object"),
    ({"tag": "bad tag\n", "provider_name": "X"}, "is not a routing slug"),
    ({"tag": "aurora/fp8", "provider_name": "Aurora", "supported_parameters": [], "pricing": {
        "prompt": "0", "completion": "0"}}, "duplicate tag 'aurora/fp8'"),
])
def test_an_odd_listing_entry_is_dropped_and_reported_and_the_model_is_probed(odd: Any, why: str) -> None:
    plan = plan_with(odd)
    assert [e.provider for e in plan.endpoints[MODEL]] == ["aurora/fp8", "borealis/bf16"]
    assert not plan.failures  # the round stays complete for the model
    (problem,) = plan.dropped[MODEL]
    assert why in problem and "\n" not in problem  # discovery.json keeps them: test_discovery_snapshot.py


def test_a_listing_with_no_usable_entry_still_fails_the_models_discovery() -> None:
    scenario = scenario_from_dict({"models": [{"id": MODEL, "endpoints": [{"tag": "aurora/fp8",
                                                                           "behaviour": {"available": False}}],
                                               "extra_listing_entries": ["junk"]}]})
    config = dataclasses.replace(load_config(None), models=(MODEL,))
    with start_simulator(scenario) as sim:
        plan = discover_plan(config, Upstream(base_url=sim.base_url, api_key="sk-or-v1-dropped-0123456789"))
    assert MODEL not in plan.endpoints and len(plan.failures) == 1 and not plan.dropped
