"""`pytest probes` is one canary round. This initial conftest adds the round's options, points
JUnit and Allure at the reports folder by default (probes/outputs.py) and registers the plugin
(probes/plugin.py); see the README for the whole option list."""

from __future__ import annotations

import contextlib
import os

import pytest


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


    group.addoption("--canary-scenario", dest="canary_scenario", default=None, metavar="FILE",
                    help="simulator scenario when the round runs on the bundled simulator (no OPENROUTER_API_KEY)")


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """Before any pytest_configure: the JUnit and Allure defaults (explicit options win)."""
    from probes.outputs import default_outputs

    default_outputs(config)


@pytest.hookimpl(trylast=True)  # after xdist's pytest_configure, so the plugin can see its role
def pytest_configure(config: pytest.Config) -> None:
    from canary.config import ConfigError
    from probes import plugin

    _bundled_simulator_unless_configured(config)
    try:
        config.pluginmanager.register(plugin, "canary-probes")
    except ConfigError as exc:
        raise pytest.UsageError(f"canary: configuration error: {exc}") from None


def _bundled_simulator_unless_configured(config: pytest.Config) -> None:
    """No OPENROUTER_API_KEY and no OPENROUTER_BASE_URL: the round's upstream is the bundled simulator.

    Started once, by the process that owns the round (xdist workers inherit the environment),
    and stopped when pytest ends. `canary probe` starts its own and sets both variables first.
    """
    if hasattr(config, "workerinput") or config.getoption("discovery_snapshot"):
        return
    if os.environ.get("OPENROUTER_API_KEY", "").strip():
        return
    from simulator.process import SIMULATOR_KEY, simulator_process

    if os.environ.get("OPENROUTER_BASE_URL", "").strip():
        # An upstream the developer chose (e.g. their own `canary sim`): they give its key too,
        # even a made-up one; without one the upstream's 401 ends the round as incomplete.
        return
    stack = contextlib.ExitStack()
    try:
        base_url = stack.enter_context(simulator_process(config.getoption("canary_scenario"))).base_url
    except RuntimeError as exc:
        raise pytest.UsageError(f"canary: {exc}") from None
    config.add_cleanup(stack.close)
    saved = dict(os.environ)
    config.add_cleanup(lambda: _restore_env(saved))
    os.environ["OPENROUTER_BASE_URL"] = base_url
    os.environ["OPENROUTER_API_KEY"] = SIMULATOR_KEY
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    message = f"canary: OPENROUTER_API_KEY is not set: probing the bundled simulator at {base_url}"
    if reporter is not None:
        reporter.write_line(message)


def _restore_env(saved: dict[str, str]) -> None:
    for key in ("OPENROUTER_BASE_URL", "OPENROUTER_API_KEY"):
        if key in saved:
            os.environ[key] = saved[key]
        else:
            os.environ.pop(key, None)
