"""Fixtures for the simulator tests: real servers on 127.0.0.1, stopped at teardown."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from simulator import RunningSimulator, load_scenario, scenario_from_dict, start_simulator


@pytest.fixture(scope="session")
def healthy() -> Iterator[RunningSimulator]:
    with start_simulator(load_scenario("healthy"), seed=7) as sim:
        yield sim


@pytest.fixture
def simulate() -> Iterator[Callable[..., RunningSimulator]]:
    """Start simulators from scenario dicts; all are stopped at teardown."""
    started: list[RunningSimulator] = []

    def start(data: dict[str, Any], **kwargs: Any) -> RunningSimulator:
        sim = start_simulator(scenario_from_dict(data), **kwargs)
        started.append(sim)
        return sim

    yield start
    for sim in started:
        sim.stop()
