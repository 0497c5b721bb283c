"""Settling a round from pytest's options, once, in pytest_configure: a RoundSettings.

The round owner (plain pytest, or the xdist controller) reads the options and canary.yaml,
resolves the upstream, creates the reports folder and discovers (or replays a snapshot); an
xdist worker reads the controller's settings from `workerinput`. What a round's settings are,
without pytest, is probes/round/settings.py.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from core.config import Config, load_config
from core.errors import InputError
from core.times import TimeFormatError, parse_time, stamp
from core.upstream import Upstream, resolve_upstream
from probes.http.client import PinnedClient
from probes.http.identity import identify
from probes.round.planning import discover_plan, load_snapshot, read_plan
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

WORKERINPUT_KEY = "canary_round"

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


def role_of(config: pytest.Config) -> str:
    if hasattr(config, "workerinput"):
        return "worker"
    return "controller" if config.pluginmanager.has_plugin("dsession") else "single"


def load_round_config(config: pytest.Config) -> Config:
    loaded = load_config(config.getoption("canary_config"))
    models = config.getoption("canary_models")
    loaded = dataclasses.replace(loaded, models=tuple(dict.fromkeys(models))) if models else loaded
    return shared_caps(loaded, config.getoption("canary_shares"))


def shared_caps(loaded: Config, shares: int) -> Config:
    """The caps of one of `shares` probe jobs running at once: each cap divided among them (at least
    1), so that together they hold for the key (overall) and for each host (per_provider)."""
    if shares < 1:
        raise pytest.UsageError(f"canary: --canary-shares {shares}: expected 1 or more")
    if shares == 1:
        return loaded
    caps = loaded.concurrency
    return dataclasses.replace(loaded, concurrency=dataclasses.replace(
        caps, overall=max(1, caps.overall // shares), per_provider=max(1, caps.per_provider // shares)))


def settle(config: pytest.Config, language_server: tuple[str, int, str] | None = None) -> RoundSettings:
    """Resolve the options and (round owner) discover; a worker reads the controller's plan."""
    role = role_of(config)
    canary_config = load_round_config(config)
    client = resolve_upstream() or Upstream()
    alluredir = config.getoption("allure_report_dir", None)
    if role == "worker":
        w = json.loads(config.workerinput[WORKERINPUT_KEY])  # type: ignore[attr-defined]
        from probes.pytest_plugin.scheduling import worker_index
        return RoundSettings(
            role=role, config=canary_config, client=client, plan=read_plan(w["plan"]),
            round_id=w["round_id"], started_at=w["started_at"], upstream=w["upstream"],
            clock=RoundClock(), controls_source=w["controls_source"], reports=Path(w["reports"]),
            workers=int(config.workerinput["workercount"]),  # type: ignore[attr-defined]
            worker_index=worker_index(config.workerinput["workerid"], int(config.workerinput["workercount"])),  # type: ignore[attr-defined]
            language_server=tuple(w["language_server"]) if w["language_server"] else None,
            alluredir=Path(alluredir) if alluredir else None,
        )
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
        plan = load_snapshot(Path(snapshot)) if snapshot else discover_plan(canary_config, client)
    except InputError as exc:  # SnapshotError, StoreError: the file, the key and what to do
        raise pytest.UsageError(f"canary: --discovery-snapshot: {exc}") from None
    state = read_round_state(Path(config.getoption("canary_state") or canary_config.paths.state))
    plan = plan.with_settings(canary_config, state.language_plan(), previous_limits(state), state.confirm_plan())
    workers = _worker_count(config) if role == "controller" else 1
    return RoundSettings(
        role=role, config=canary_config, client=client, plan=plan, round_id=round_id, started_at=started_at,
        upstream=upstream, clock=clock, controls_source=controls_source, reports=reports, workers=workers,
        worker_index=None,
        language_server=language_server,
        alluredir=Path(alluredir) if alluredir else None,
    )


def _worker_count(config: pytest.Config) -> int:
    from xdist.workermanage import parse_tx_spec_config
    return max(1, len(parse_tx_spec_config(config)))
