"""`pytest probes` is one canary round. This initial conftest adds the round's options and
registers the plugin (probes/plugin.py); see the README for the whole option list."""

from __future__ import annotations

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


@pytest.hookimpl(trylast=True)  # after xdist's pytest_configure, so the plugin can see its role
def pytest_configure(config: pytest.Config) -> None:
    from canary.config import ConfigError
    from probes import plugin

    try:
        config.pluginmanager.register(plugin, "canary-probes")
    except ConfigError as exc:
        raise pytest.UsageError(f"canary: configuration error: {exc}") from None
