"""`pytest probes` is one canary round. This conftest adds the round's options
(probes/pytest_plugin/options.py), points JUnit and Allure at the reports folder by default
(probes/pytest_plugin/outputs.py), starts the bundled simulator when the round has no upstream
(probes/pytest_plugin/bundled_simulator.py) and registers the plugin (probes/pytest_plugin/hooks.py);
see docs/developing.md for the whole option list."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    from probes.pytest_plugin.options import add_options

    add_options(parser)


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """Before any pytest_configure: the JUnit and Allure defaults (explicit options win)."""
    from probes.pytest_plugin.outputs import default_outputs

    default_outputs(config)


@pytest.hookimpl(trylast=True)  # after xdist's pytest_configure, so the plugin can see its role
def pytest_configure(config: pytest.Config) -> None:
    from core.config import ConfigError
    from probes.pytest_plugin import bundled_simulator, hooks

    bundled_simulator.start_unless_configured(config)
    bundled_simulator.hand_over_scenario_controls(config)
    try:
        config.pluginmanager.register(hooks, "canary-probes")
    except ConfigError as exc:
        raise pytest.UsageError(f"canary: configuration error: {exc}") from None
