"""Settling a round's settings once, in pytest_configure, into one typed value.

Three roles share the plugin:
- "single": plain `pytest probes` (or `-n 0`): discovers, probes, judges and reports;
- "controller": the xdist controller: discovers, probes the positive controls, serves the
  language detector, collects every case and reports; it runs no test item;
- "worker": an xdist worker: reads the plan from `workerinput`, probes its share.

Two things differ when the upstream is a local simulator (never on a real upstream):
- positive controls: a simulator started with a known scenario (probes/conftest.py) brings
  its own, used in place of canary.yaml's `controls` (which name real hosts);
- the clock: `--canary-virtual-time` records the round as started at a virtual time (real
  time shifted by a fixed offset), so `canary round` can replay a half-hourly schedule.
"""

from __future__ import annotations

import dataclasses
import json
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from core.config import Config, load_config
from core.store import read_json
from core.upstream import Upstream, resolve_upstream
from judge.state import STATE_FIX, state_from_json
from probes.round.planning import RoundPlan, discover_plan, load_snapshot

WORKERINPUT_KEY = "canary_round"
SIMULATOR_UPSTREAM = "simulator"
CONFIG_CONTROLS = "canary.yaml"


@dataclass(frozen=True, slots=True)
class SimulatedControls:
    """The positive controls of the scenario a local simulator serves (set by probes/conftest.py)."""

    scenario: str
    controls: dict[str, tuple[str, ...]]


SIMULATED_CONTROLS = pytest.StashKey[SimulatedControls]()


@dataclass(frozen=True, slots=True)
class RoundClock:
    """Real UTC time, or a simulator round's virtual time: real time shifted by a fixed offset."""

    offset: timedelta = timedelta(0)
    virtual: bool = False

    def now(self) -> datetime:
        return datetime.now(UTC) + self.offset

    def stamp(self) -> str:
        """Now on this clock, as results.json writes times."""
        return stamp(self.now())

    @property
    def kind(self) -> str:
        return "virtual" if self.virtual else "real"


@dataclass(frozen=True, slots=True)
class RoundSettings:
    role: str                         # single | controller | worker
    config: Config
    client: Upstream
    plan: RoundPlan
    round_id: str
    started_at: str
    upstream: str                     # simulator | openrouter | custom
    clock: RoundClock                 # real, or virtual (simulator rounds of `canary round`)
    controls_source: str              # canary.yaml, or "simulator scenario <name>"
    reports: Path
    workers: int                      # xdist worker count (1 without xdist)
    worker_index: int | None          # this worker's position (None: replacement worker / not a worker)
    language_server: tuple[str, int, str] | None  # host, port, authkey hex (xdist only)
    alluredir: Path | None


def stamp(at: datetime) -> str:
    """A time as results.json writes it (UTC, second precision, Z)."""
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def utc_now() -> str:
    return RoundClock().stamp()


def new_round_id(at: datetime | None = None) -> str:
    return (at or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(3)


def round_clock(virtual_time: str | None, upstream: str) -> RoundClock:
    """The round's clock; a virtual time is refused unless the upstream is a local simulator."""
    if not virtual_time:
        return RoundClock()
    if upstream != SIMULATOR_UPSTREAM:
        raise pytest.UsageError(f"canary: --canary-virtual-time is for simulator rounds only; the upstream is "
                                f"{upstream}, and a real round runs on real time")
    try:
        at = datetime.fromisoformat(virtual_time.strip().replace("Z", "+00:00"))
    except ValueError:
        raise pytest.UsageError(f"canary: --canary-virtual-time: {virtual_time!r} is not an ISO 8601 time "
                                "like 2026-11-29T22:30:00Z") from None
    at = at if at.tzinfo else at.replace(tzinfo=UTC)
    return RoundClock(offset=at - datetime.now(UTC), virtual=True)


def round_controls(config: pytest.Config, canary_config: Config, upstream: str) -> tuple[Config, str]:
    """canary.yaml's controls, or, on a local simulator serving a known scenario, the scenario's own."""
    simulated = config.stash.get(SIMULATED_CONTROLS, None)
    if simulated is None or upstream != SIMULATOR_UPSTREAM:
        return canary_config, CONFIG_CONTROLS
    return (dataclasses.replace(canary_config, controls=dict(simulated.controls)),
            f"simulator scenario {simulated.scenario}")


def upstream_of(base_url: str) -> str:
    host = (urlsplit(base_url).hostname or "").lower()
    if host == "openrouter.ai" or host.endswith(".openrouter.ai"):
        return "openrouter"
    return "simulator" if host in ("127.0.0.1", "localhost", "::1") else "custom"


def role_of(config: pytest.Config) -> str:
    if hasattr(config, "workerinput"):
        return "worker"
    return "controller" if config.pluginmanager.has_plugin("dsession") else "single"


def load_round_config(config: pytest.Config) -> Config:
    loaded = load_config(config.getoption("canary_config"))
    models = config.getoption("canary_models")
    return dataclasses.replace(loaded, models=tuple(dict.fromkeys(models))) if models else loaded


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
            role=role, config=canary_config, client=client, plan=RoundPlan.from_json(w["plan"]),
            round_id=w["round_id"], started_at=w["started_at"], upstream=w["upstream"],
            clock=RoundClock(), controls_source=w["controls_source"], reports=Path(w["reports"]), workers=int(config.workerinput["workercount"]),  # type: ignore[attr-defined]
            worker_index=worker_index(config.workerinput["workerid"], int(config.workerinput["workercount"])),  # type: ignore[attr-defined]
            language_server=tuple(w["language_server"]) if w["language_server"] else None,
            alluredir=Path(alluredir) if alluredir else None,
        )
    reports = Path(config.getoption("canary_reports") or canary_config.paths.reports)
    reports.mkdir(parents=True, exist_ok=True)
    upstream = upstream_of(client.base_url)
    clock = round_clock(config.getoption("canary_virtual_time"), upstream)
    canary_config, controls_source = round_controls(config, canary_config, upstream)
    start = clock.now()
    round_id = config.getoption("canary_round_id") or new_round_id(start)
    started_at = stamp(start)
    snapshot = config.getoption("discovery_snapshot")
    plan = load_snapshot(Path(snapshot)) if snapshot else discover_plan(canary_config, client)
    plan = plan.with_settings(canary_config, _language_plan(config, canary_config))
    workers = _worker_count(config) if role == "controller" else 1
    return RoundSettings(
        role=role, config=canary_config, client=client, plan=plan, round_id=round_id, started_at=started_at,
        upstream=upstream, clock=clock, controls_source=controls_source, reports=reports, workers=workers,
        worker_index=None,
        language_server=language_server,
        alluredir=Path(alluredir) if alluredir else None,
    )


def workerinput_for(s: RoundSettings) -> str:
    """What a worker needs to collect exactly what the controller planned (JSON: execnet-safe)."""
    return json.dumps({
        "plan": s.plan.to_json(), "round_id": s.round_id, "started_at": s.started_at, "upstream": s.upstream,
        "controls_source": s.controls_source, "reports": str(s.reports),
        "language_server": list(s.language_server) if s.language_server else None,
    })


def snapshot_doc(s: RoundSettings) -> dict[str, Any]:
    """reports/discovery.json: replayable with --discovery-snapshot. Holds no key."""
    return {"schema_version": 1, "round_id": s.round_id, "taken_at": s.started_at, "clock": s.clock.kind,
            "upstream": s.upstream, "base_url": s.client.base_url, "controls_source": s.controls_source,
            "plan": s.plan.to_json()}


def _language_plan(config: pytest.Config, canary_config: Config) -> dict[str, dict[str, str]]:
    return read_language_plan(Path(config.getoption("canary_state") or canary_config.paths.state))


def read_language_plan(path: Path) -> dict[str, dict[str, str]]:
    """{model: {provider: language}} for this round, from the judge's state; {} without a state file.

    A file that cannot be read raises StoreError, one that is not a state StateError (both
    ValueErrors naming the file).
    """
    raw = read_json(path, "state file", STATE_FIX)
    return {} if raw is None else state_from_json(raw, str(path)).language_plan()


def _worker_count(config: pytest.Config) -> int:
    from xdist.workermanage import parse_tx_spec_config
    return max(1, len(parse_tx_spec_config(config)))
