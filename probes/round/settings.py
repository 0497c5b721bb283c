"""A round's settings, settled once into one typed value (by probes/pytest_plugin/settle.py).

Two things differ when the upstream is a local simulator (never on a real upstream):
- positive controls: a simulator started with a known scenario
  (probes/pytest_plugin/bundled_simulator.py) brings
  its own, used in place of canary.yaml's `controls` (which name real hosts);
- the clock: `--canary-virtual-time` records the round as started at a virtual time (real
  time shifted by a fixed offset), so `canary round` can replay a half-hourly schedule.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from core.config import Config
from core.field_rules import written
from core.layers import STATE_FIX
from core.results import REAL, VIRTUAL, Clock
from core.store import read_json
from core.times import stamp
from core.upstream import Upstream
from judge.replies.listing import ListedLimits
from judge.suspension.state import JudgeState, read_state
from probes.round.planning import SNAPSHOT_SCHEMA_VERSION, DiscoveryFile, RoundPlan

SIMULATOR_UPSTREAM = "simulator"
CONFIG_CONTROLS = "canary.yaml"


@dataclass(frozen=True, slots=True)
class SimulatedControls:
    """The positive controls of the scenario a local simulator serves (probes/pytest_plugin/bundled_simulator.py)."""

    scenario: str
    controls: dict[str, tuple[str, ...]]


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
    def kind(self) -> Clock:
        return VIRTUAL if self.virtual else REAL


@dataclass(frozen=True, slots=True)
class RoundSettings:
    config: Config
    client: Upstream
    plan: RoundPlan
    round_id: str
    started_at: str
    upstream: str                     # simulator | openrouter | custom
    clock: RoundClock                 # real, or virtual (simulator rounds of `canary round`)
    controls_source: str              # canary.yaml, or "simulator scenario <name>"
    reports: Path
    alluredir: Path | None


def new_round_id(at: datetime | None = None) -> str:
    return (at or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(3)


def snapshot_doc(s: RoundSettings) -> dict[str, Any]:
    """reports/discovery.json (planning.DiscoveryFile): replayable with --discovery-snapshot. Holds no key."""
    doc = DiscoveryFile(schema_version=SNAPSHOT_SCHEMA_VERSION, round_id=s.round_id, taken_at=s.started_at,
                        clock=s.clock.kind, upstream=s.upstream, base_url=s.client.base_url,
                        controls_source=s.controls_source, plan=s.plan)
    result: dict[str, Any] = written(doc)
    return result


def read_round_state(path: Path) -> JudgeState:
    """The judge's state a round plans from, read once through its codec (its language plan, the
    previous round's listed limits); an empty state without a state file.

    A file that cannot be read raises StoreError, one that is not a state StateError (both
    ValueErrors naming the file).
    """
    raw = read_json(path, "state file", STATE_FIX)
    return JudgeState() if raw is None else read_state(raw, str(path))


def previous_limits(state: JudgeState) -> dict[str, dict[str, ListedLimits]]:
    """{model: {provider: its listed limits}} as the judge kept them from the previous round."""
    return {m: {p: ps.limits for p, ps in providers.items() if ps.limits is not None}
            for m, providers in state.models.items()}
