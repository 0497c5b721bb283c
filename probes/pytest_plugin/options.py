"""The command-line options of `pytest probes` (added by probes/conftest.py's pytest_addoption)."""

from __future__ import annotations

import pytest


def add_options(parser: pytest.Parser) -> None:
    """The `canary round` option group of `pytest probes` (docs/developing.md: the whole option list)."""
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


def one_process(config: pytest.Config) -> str | None:
    """pytest-xdist's -n (or --tx) asked for: run the round in this one process instead, and say so.

    Its probes already run concurrently in one event loop; workers would only add processes
    (benchmarks/round_scaling.py: one process is faster and smaller) and make the positive controls
    and the language detector cross between them. Called before xdist reads the options (its own
    pytest_cmdline_main), so no worker starts. Returns the line to print, or None."""
    option = config.option
    if not (getattr(option, "numprocesses", None) or getattr(option, "tx", None)):
        return None
    option.numprocesses, option.tx, option.distload, option.dist = 0, [], False, "no"
    return ("canary: -n ignored: a round runs in one process, its probes concurrently in one event loop "
            "(docs/developing.md, `pytest probes -n N`)")
