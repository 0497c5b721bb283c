"""`pytest probes` is one canary round. This conftest adds the round's options
(probes/pytest_plugin/options.py), keeps the round in one process when `-n` asks for xdist workers,
points JUnit and Allure at the reports folder by default (probes/pytest_plugin/outputs.py), starts
the bundled simulator when the round has no upstream (probes/pytest_plugin/bundled_simulator.py)
and registers the plugin (probes/pytest_plugin/hooks.py); see docs/developing.md for the whole
option list."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    from probes.pytest_plugin.options import add_options

    add_options(parser)


NOTE = pytest.StashKey[str | None]()


@pytest.hookimpl(tryfirst=True)  # registered after xdist's plugin, so it runs before xdist reads -n
def pytest_cmdline_main(config: pytest.Config) -> None:
    """Before any pytest_configure: one process, and the JUnit and Allure defaults (explicit options win)."""
    from probes.pytest_plugin.options import one_process
    from probes.pytest_plugin.outputs import default_outputs

    config.stash[NOTE] = one_process(config)
    default_outputs(config)


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    from core.config import ConfigError
    from probes.pytest_plugin import bundled_simulator, hooks

    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if (note := config.stash.get(NOTE, None)) and reporter is not None:
        reporter.write_line(note, yellow=True)
    bundled_simulator.start_unless_configured(config)
    bundled_simulator.hand_over_scenario_controls(config)
    try:
        config.pluginmanager.register(hooks, "canary-probes")
    except ConfigError as exc:
        raise pytest.UsageError(f"canary: configuration error: {exc}") from None
