"""`pytest probes` is one canary round. This initial conftest adds the round's options, points
JUnit and Allure at the reports folder by default (probes/pytest_plugin/outputs.py) and registers the plugin
(probes/pytest_plugin/hooks.py); see the README for the whole option list."""

from __future__ import annotations

import contextlib
import os

import pytest

from core.upstream import BASE_URL_ENV, KEY_ENV, resolve_upstream

# simulator.process.SCENARIO_ENV, spelled out so a round against a real upstream never imports
# the simulator package (tests/simulator/test_process.py keeps the two equal).
SCENARIO_ENV = "CANARY_SIMULATOR_SCENARIO"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("canary", "canary round")
    group.addoption("--canary-config", dest="canary_config", default=None, metavar="FILE",
                    help="configuration file (default: $CANARY_CONFIG or canary.yaml)")
    group.addoption("--canary-model", dest="canary_models", action="append", default=None, metavar="MODEL",
                    help="probe this model instead of canary.yaml's models (repeatable)")
    group.addoption("--discovery-snapshot", dest="discovery_snapshot", default=None, metavar="FILE",
                    help="replay a saved reports/discovery.json instead of discovering live")
    group.addoption("--canary-reports", dest="canary_reports", default=None, metavar="DIR",
                    help="where results.json and discovery.json go (default: paths.reports, reports/)")
    group.addoption("--canary-state", dest="canary_state", default=None, metavar="FILE",
                    help="the judge's state file holding the language plan (default: paths.state)")
    group.addoption("--canary-round-id", dest="canary_round_id", default=None, metavar="ID",
                    help="round id to record (default: UTC time + random suffix)")
    group.addoption("--canary-virtual-time", dest="canary_virtual_time", default=None, metavar="ISO8601",
                    help="simulator rounds only: record the round as started at this virtual time "
                         "(`canary round` replays a half-hourly schedule on the simulator)")
    group.addoption("--canary-scenario", dest="canary_scenario", default=None, metavar="FILE",
                    help="simulator scenario when the round runs on the bundled simulator (no OPENROUTER_API_KEY)")


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """Before any pytest_configure: the JUnit and Allure defaults (explicit options win)."""
    from probes.pytest_plugin.outputs import default_outputs

    default_outputs(config)


@pytest.hookimpl(trylast=True)  # after xdist's pytest_configure, so the plugin can see its role
def pytest_configure(config: pytest.Config) -> None:
    from core.config import ConfigError
    from probes.pytest_plugin import hooks

    _bundled_simulator_unless_configured(config)
    _scenario_controls(config)
    try:
        config.pluginmanager.register(hooks, "canary-probes")
    except ConfigError as exc:
        raise pytest.UsageError(f"canary: configuration error: {exc}") from None


def _bundled_simulator_unless_configured(config: pytest.Config) -> None:
    """No OPENROUTER_API_KEY and no OPENROUTER_BASE_URL: the round's upstream is the bundled simulator.

    Started once, by the process that owns the round (xdist workers inherit the environment),
    and stopped when pytest ends. `canary probe` starts its own and sets both variables first.
    """
    if hasattr(config, "workerinput") or config.getoption("discovery_snapshot"):
        return
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


def _scenario_controls(config: pytest.Config) -> None:
    """The round's upstream is a simulator serving a known scenario: hand its controls to the plugin.

    The plugin uses them in place of canary.yaml's `controls` only when the upstream really is
    a local simulator (probes/round/settings.py); a real upstream keeps canary.yaml's.
    """
    path = os.environ.get(SCENARIO_ENV, "").strip()
    if hasattr(config, "workerinput") or not path:
        return  # and the simulator package (aiohttp and all) is not even imported
    from simulator.process import scenario_controls

    from probes.round.settings import SIMULATED_CONTROLS, SimulatedControls

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
