"""The bundled simulator, started for a round that has no upstream, and its scenario's controls.

The one place of probes/ that imports `simulator` (tests/test_architecture.py checks it), and
only lazily: a round against a real upstream never imports the simulator package.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest

from core.errors import InputError
from core.upstream import BASE_URL_ENV, KEY_ENV, resolve_upstream
from probes.round.planning import read_snapshot
from probes.round.settings import SIMULATOR_UPSTREAM

# simulator.process.SCENARIO_ENV, spelled out so a round against a real upstream never imports
# the simulator package (tests/probes/round/test_round_controls.py keeps the two equal).
SCENARIO_ENV = "CANARY_SIMULATOR_SCENARIO"


def start_unless_configured(config: pytest.Config) -> None:
    """No OPENROUTER_API_KEY and no OPENROUTER_BASE_URL: the round's upstream is the bundled simulator
    (with --discovery-snapshot, only when the snapshot was taken from a simulator).

    Started once, and stopped when pytest ends. `canary probe` starts its own and sets both variables first.
    """
    snapshot = config.getoption("discovery_snapshot")
    if snapshot and not _taken_from_a_simulator(Path(snapshot)):
        return  # a saved discovery of a real upstream replays against the upstream the environment names
    if resolve_upstream() is not None:
        # OpenRouter, or an upstream the developer chose (e.g. their own `canary sim`): they give
        # its key too, even a made-up one; without one the upstream's 401 ends the round as incomplete.
        return
    from simulator.process import simulator_process

    stack = contextlib.ExitStack()
    try:
        sim = stack.enter_context(simulator_process(config.getoption("canary_scenario")))
        base_url = sim.base_url
    except (RuntimeError, ValueError) as exc:
        raise pytest.UsageError(f"canary: {exc}") from None
    config.add_cleanup(stack.close)
    saved = dict(os.environ)
    config.add_cleanup(lambda: _restore_env(saved))
    os.environ.update(sim.environment())
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    message = f"canary: OPENROUTER_API_KEY is not set: probing the bundled simulator at {base_url}"
    if reporter is not None:
        reporter.write_line(message)


def _taken_from_a_simulator(snapshot: Path) -> bool:
    """The saved discovery came from a simulator: replayed without an upstream, it needs one again.
    A snapshot that cannot be read is no (settling the round refuses it, naming the key)."""
    try:
        return read_snapshot(snapshot).upstream == SIMULATOR_UPSTREAM
    except InputError:
        return False


def hand_over_scenario_controls(config: pytest.Config) -> None:
    """The round's upstream is a simulator serving a known scenario: hand its controls to the plugin.

    The plugin uses them in place of canary.yaml's `controls` only when the upstream really is
    a local simulator (probes/round/settings.py); a real upstream keeps canary.yaml's.
    """
    path = os.environ.get(SCENARIO_ENV, "").strip()
    if not path:
        return  # and the simulator package (aiohttp and all) is not even imported
    from probes.pytest_plugin.settle import SIMULATED_CONTROLS
    from probes.round.settings import SimulatedControls
    from simulator.process import scenario_controls

    try:
        found = scenario_controls(path)
    except ValueError as exc:
        raise pytest.UsageError(f"canary: {SCENARIO_ENV}: {exc}") from None
    config.stash[SIMULATED_CONTROLS] = SimulatedControls(found.name, found.controls)


def _restore_env(saved: dict[str, str]) -> None:
    for key in (BASE_URL_ENV, KEY_ENV, SCENARIO_ENV):
        if key in saved:
            os.environ[key] = saved[key]
        else:
            os.environ.pop(key, None)
