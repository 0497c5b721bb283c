"""The exclusion layers as data, and their merge into provider.ignore with each layer's expiry (pure).

Three layers, declared once in LAYERS and iterated by everyone who reads them: builtin and incident
(people's files: never expire, or at an optional `expires`) and suspension (the judge's, always
time-bounded; an observe-mode one is only what enforcement would have done). Both the backend's
library and the judge import this module, so an expiry means the same in the round and in
production (docs/judge.md, three layers).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Final

BUILTIN = "builtin"
INCIDENT = "incident"
SUSPENSION = "suspension"
# The state file's version, where it keeps a provider's suspension (models.<model>.<provider>.<key>: a
# word of the file's format, not the layer's name), and what to do with one that cannot be read: the
# judge's codec (judge/suspension/state.py) and the backend's reader (core/layer_files.py) share them.
STATE_SCHEMA_VERSION: Final = 1
STATE_SUSPENSION_KEY = "suspension"
STATE_FIX = "restore it from git (git checkout -- <file>) or delete it to start from an empty state"


@dataclass(frozen=True, slots=True)
class BuiltinEntry:
    """An entry of builtin.yaml (the file's declaration: core/layer_files.py reads it)."""

    provider: str
    reason: str
    since: str | None = None  # a date or an ISO 8601 time


@dataclass(frozen=True, slots=True)
class IncidentEntry:
    """An entry of incidents.yaml."""

    provider: str
    reason: str
    added_at: str  # an ISO 8601 time (or a date)
    expires: str | None = None
    added_by: str | None = None


@dataclass(frozen=True, slots=True)
class SuspensionEntry:
    """What the merge needs of one suspension in the state file (models.<model>.<provider>.suspension);
    the whole record is judge/suspension/state.py's Suspension."""

    since: str
    until: str
    mode: str
    reason: str


@dataclass(frozen=True, slots=True)
class Layer:
    """One exclusion layer: its name, its file (`path`: canary.yaml's `paths.<setting>` default), and what
    one entry of the file is."""

    name: str
    setting: str
    path: str
    entry: type[BuiltinEntry] | type[IncidentEntry] | type[SuspensionEntry]
    written_by: str  # "people" (main, reviewed) or "judge" (the state branch)


LAYERS: tuple[Layer, ...] = (
    Layer(BUILTIN, "builtin", "exclusions/builtin.yaml", BuiltinEntry, "people"),
    Layer(INCIDENT, "incidents", "exclusions/incidents.yaml", IncidentEntry, "people"),
    Layer(SUSPENSION, "state", "state/canary-state.json", SuspensionEntry, "judge"),
)
PEOPLE_LAYERS: tuple[Layer, ...] = tuple(layer for layer in LAYERS if layer.written_by == "people")


def layer_named(name: str) -> Layer:
    """The layer called `name` (KeyError for a name LAYERS does not declare)."""
    for layer in LAYERS:
        if layer.name == name:
            return layer
    raise KeyError(name)


@dataclass(frozen=True, slots=True)
class Exclusion:
    """One entry of any layer; `line` is where it sits in its file (None in the state file)."""

    model: str
    provider: str
    layer: str
    reason: str
    since: datetime | None = None
    expires: datetime | None = None
    added_by: str | None = None
    line: int | None = None
    observed: bool = False  # an observe-mode suspension: in would_ignore only

    def active(self, now: datetime) -> bool:
        """Still counting at `now`: an entry without an end (its layer allowing one) never expires."""
        return self.expires is None or self.expires > now


def people_excluded(exclusions: Iterable[Exclusion], now: datetime) -> dict[str, frozenset[str]]:
    """{model: providers} excluded at `now` by the layers people write."""
    people = {layer.name for layer in PEOPLE_LAYERS}
    out: dict[str, set[str]] = {}
    for e in exclusions:
        if e.layer in people and e.active(now):
            out.setdefault(e.model, set()).add(e.provider)
    return {m: frozenset(p) for m, p in out.items()}


def effective_ignore(model: str, entries: Iterable[Exclusion], now: datetime) -> list[str]:
    """The provider.ignore list for `model` at `now`: every layer's unexpired entries, observed ones aside."""
    return sorted({e.provider for e in entries if e.model == model and not e.observed and e.active(now)})


def would_ignore(model: str, entries: Iterable[Exclusion], now: datetime) -> list[str]:
    """effective_ignore with the observe-mode suspensions: what enforcement would have produced."""
    return sorted({e.provider for e in entries if e.model == model and e.active(now)})
