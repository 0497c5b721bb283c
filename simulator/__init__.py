"""An OpenRouter-compatible simulator: the upstream of every test and of every round without a key.

Public API::

    from simulator import load_scenario, start_simulator
    with start_simulator(load_scenario("healthy"), seed=1) as sim:
        sim.base_url      # http://127.0.0.1:PORT/api/v1
        sim.received      # every request, Authorization masked
        sim.set_round(2)  # select the scenario's phases of round 2

Modules: scenario (declarative scenarios), faults (catalogue and draw), banks/language (text and
language choice), replies (pure reply planning; the Plan it makes: plan), corrupt/schema_gen (fault text), routing
(provider preferences), wire (JSON shapes), stream (bytes and timing), server (aiohttp routes),
runtime (threads), cli (`python -m simulator`, `canary sim`).
"""

from __future__ import annotations

from simulator.faults import FAULT_NAMES
from simulator.runtime import RunningSimulator, start_simulator
from simulator.scenario import (
    DEFAULT_SCENARIO,
    SCENARIOS_DIR,
    Behaviour,
    Model,
    Phase,
    Scenario,
    ScenarioError,
    SimulatedEndpoint,
    load_scenario,
    scenario_from_dict,
)
from simulator.server import ReceivedRequest

__all__ = [
    "DEFAULT_SCENARIO",
    "FAULT_NAMES",
    "SCENARIOS_DIR",
    "Behaviour",
    "Model",
    "Phase",
    "ReceivedRequest",
    "RunningSimulator",
    "Scenario",
    "ScenarioError",
    "SimulatedEndpoint",
    "load_scenario",
    "scenario_from_dict",
    "start_simulator",
]
