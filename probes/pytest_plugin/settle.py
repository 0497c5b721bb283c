"""Settling a round from pytest's options, once, in pytest_configure: a RoundSettings.

It reads the options and canary.yaml, resolves the upstream, creates the reports folder and
discovers (or replays a snapshot). What a round's settings are, without pytest, is
probes/round/settings.py.
"""

from __future__ import annotations

import asyncio
import dataclasses
from datetime import UTC, datetime
from pathlib import Path

import pytest

from core.config import Config, load_config
from core.errors import InputError
from core.times import TimeFormatError, parse_time, stamp
from core.upstream import Upstream, resolve_upstream
from probes.http.client import PinnedClient
from probes.http.identity import identify
from probes.round.planning import discover_plan, read_snapshot
from probes.round.settings import (
    CONFIG_CONTROLS,
    SIMULATOR_UPSTREAM,
    RoundClock,
    RoundSettings,
    SimulatedControls,
    new_round_id,
    previous_limits,
    read_round_state,
)

SIMULATED_CONTROLS = pytest.StashKey[SimulatedControls]()


def round_clock(virtual_time: str | None, upstream: str) -> RoundClock:
    """The round's clock; a virtual time is refused unless the upstream is a local simulator."""
    if not virtual_time:
        return RoundClock()
    if upstream != SIMULATOR_UPSTREAM:
        raise pytest.UsageError(f"canary: --canary-virtual-time is for simulator rounds only; the upstream is "
                                f"{upstream}, and a real round runs on real time")
    try:
        at = parse_time(virtual_time, "--canary-virtual-time")
    except TimeFormatError:
        raise pytest.UsageError(f"canary: --canary-virtual-time: {virtual_time!r} is not an ISO 8601 time "
                                "like 2026-11-29T22:30:00Z") from None
    return RoundClock(offset=at - datetime.now(UTC), virtual=True)


def round_controls(config: pytest.Config, canary_config: Config, upstream: str) -> tuple[Config, str]:
    """canary.yaml's controls, or, on a local simulator serving a known scenario, the scenario's own."""
    simulated = config.stash.get(SIMULATED_CONTROLS, None)
    if simulated is None or upstream != SIMULATOR_UPSTREAM:
        return canary_config, CONFIG_CONTROLS
    return (dataclasses.replace(canary_config, controls=dict(simulated.controls)),
            f"simulator scenario {simulated.scenario}")


def identify_upstream(client: Upstream, canary_config: Config) -> str:
    """Who answers at the base URL (probes/http/identity.py): the simulator only when it says so."""
    async def ask() -> str:
        async with PinnedClient(client, overall_concurrency=1,
                                deadline_s=canary_config.probe.request_deadline_seconds) as http:
            return await identify(http)
    return asyncio.run(ask())


def load_round_config(config: pytest.Config) -> Config:
    loaded = load_config(config.getoption("canary_config"))
    models = config.getoption("canary_models")
    return dataclasses.replace(loaded, models=tuple(dict.fromkeys(models))) if models else loaded


def settle(config: pytest.Config) -> RoundSettings:
    """Resolve the options, identify the upstream and discover."""
    canary_config = load_round_config(config)
    client = resolve_upstream() or Upstream()
    alluredir = config.getoption("allure_report_dir", None)
    reports = Path(config.getoption("canary_reports") or canary_config.paths.reports)
    reports.mkdir(parents=True, exist_ok=True)
    upstream = identify_upstream(client, canary_config)
    clock = round_clock(config.getoption("canary_virtual_time"), upstream)
    canary_config, controls_source = round_controls(config, canary_config, upstream)
    start = clock.now()
    round_id = config.getoption("canary_round_id") or new_round_id(start)
    started_at = stamp(start)
    snapshot = config.getoption("discovery_snapshot")
    try:
        plan = read_snapshot(Path(snapshot)).plan if snapshot else discover_plan(canary_config, client)
    except InputError as exc:  # SnapshotError, StoreError: the file, the key and what to do
        raise pytest.UsageError(f"canary: --discovery-snapshot: {exc}") from None
    state = read_round_state(Path(config.getoption("canary_state") or canary_config.paths.state))
    plan = plan.with_settings(canary_config, state.language_plan(), previous_limits(state), state.confirm_plan())
    return RoundSettings(
        config=canary_config, client=client, plan=plan, round_id=round_id, started_at=started_at,
        upstream=upstream, clock=clock, controls_source=controls_source, reports=reports,
        alluredir=Path(alluredir) if alluredir else None,
    )
