"""An OpenRouter-compatible simulator: the upstream of every test and of every round without a key.
Its API, routes and scenarios: simulator/README.md; its modules: ARCHITECTURE.md."""

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
