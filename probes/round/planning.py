"""The round plan: discovery once, the language of each endpoint, and the cases that follow.

The round owner (plain pytest, or the xdist controller) builds the plan in pytest_configure,
writes it to reports/discovery.json and hands the same JSON to every xdist worker through
`workerinput`: workers never discover (workers that each discover collect different tests and
xdist aborts the run, docs/design-notes.md §1.1). `--discovery-snapshot FILE` replays a saved plan.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.config import Config
from core.upstream import Upstream
from core.vocabulary import CONTRACTS, LANGUAGE, OPTIONAL_CONTRACTS, REFUSAL
from judge.replies.listing import ListedLimits, listing_notes
from probes.http.client import PinnedClient
from probes.http.discovery import DiscoveryError, discover
from probes.http.models_info import ThinkingDefaults, thinking_defaults
from probes.http.records import Endpoint
from probes.round.cases import Case, DiscoveryCase, PlannedCase

SNAPSHOT_SCHEMA_VERSION = 1
AUTH_STATUSES = (401, 402, 403)


@dataclass(frozen=True, slots=True)
class DiscoveryFailure:
    model: str
    message: str
    auth: bool = False


@dataclass(frozen=True, slots=True)
class RoundPlan:
    """Everything every process of a round must agree on before collecting."""

    endpoints: dict[str, tuple[Endpoint, ...]]          # model -> endpoints, sorted by tag
    failures: tuple[DiscoveryFailure, ...] = ()
    languages: dict[str, dict[str, str]] = dataclasses.field(default_factory=dict)
    contracts: tuple[str, ...] = CONTRACTS
    controls: dict[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    # model -> the listing entries discovery dropped (malformed, duplicate), each a reason naming the
    # entry: reported, while the model's other endpoints are probed (the round stays complete).
    dropped: dict[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    # model -> discovery's sanity notes on its listed limits (judge/replies/listing.py): reported, decide nothing.
    notes: dict[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    # model -> the optional contracts canary.yaml's optional_contracts: opts it into (none: only the four).
    optional: dict[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)

    def cases(self) -> list[PlannedCase]:
        """Discovery failures first (so they are never lost in a long list), then model/tag/contract."""
        out: list[PlannedCase] = [DiscoveryCase(model=f.model, message=f.message, auth_error=f.auth)
                                  for f in self.failures]
        for model, endpoints in self.endpoints.items():
            controls = set(self.controls.get(model, ()))
            for ep in endpoints:
                for contract in CONTRACTS:
                    if contract not in self.contracts:
                        continue
                    if contract in OPTIONAL_CONTRACTS and contract not in self.optional.get(model, ()):
                        continue
                    out.append(Case(
                        model=model, contract=contract, endpoint=ep,
                        language=self.languages.get(model, {}).get(ep.provider) if contract == LANGUAGE else None,
                        control=contract == REFUSAL and ep.provider in controls,
                    ))
        return out

    def control_cases(self) -> list[Case]:
        """The refusal cases of the positive-control hosts that discovery found."""
        return [c for c in self.cases() if isinstance(c, Case) and c.control]

    def missing_controls(self, model: str) -> tuple[str, ...]:
        """Configured controls that discovery did not list: the probe cannot be verified."""
        found = {ep.provider for ep in self.endpoints.get(model, ())}
        return tuple(t for t in self.controls.get(model, ()) if t not in found)

    def to_json(self) -> dict[str, Any]:
        return {
            "schema_version": SNAPSHOT_SCHEMA_VERSION,
            "models": {m: {"endpoints": [_endpoint_json(e) for e in eps]} for m, eps in self.endpoints.items()},
            "failures": [dataclasses.asdict(f) for f in self.failures],
            "languages": self.languages,
            "contracts": list(self.contracts),
            "controls": {m: list(t) for m, t in self.controls.items()},
            "dropped": {m: list(p) for m, p in self.dropped.items()},
            "notes": {m: list(n) for m, n in self.notes.items()},
            "optional": {m: list(c) for m, c in self.optional.items()},
        }

    @classmethod
    def from_json(cls, raw: Any) -> RoundPlan:
        if not isinstance(raw, dict) or raw.get("schema_version") != SNAPSHOT_SCHEMA_VERSION:
            raise ValueError(f"not a discovery snapshot of schema_version {SNAPSHOT_SCHEMA_VERSION}")
        endpoints = {m: tuple(_endpoint_from(e) for e in v["endpoints"]) for m, v in raw["models"].items()}
        return cls(
            endpoints=endpoints,
            failures=tuple(DiscoveryFailure(**f) for f in raw.get("failures", [])),
            languages={m: dict(v) for m, v in raw.get("languages", {}).items()},
            contracts=tuple(raw.get("contracts", CONTRACTS)),
            controls={m: tuple(v) for m, v in raw.get("controls", {}).items()},
            dropped={m: tuple(v) for m, v in raw.get("dropped", {}).items()},
            notes={m: tuple(v) for m, v in raw.get("notes", {}).items()},
            optional={m: tuple(v) for m, v in raw.get("optional", {}).items()},
        )

    def with_settings(self, config: Config, language_plan: dict[str, dict[str, str]],
                      previous_limits: Mapping[str, Mapping[str, ListedLimits]] | None = None) -> RoundPlan:
        """Apply this round's configuration (contracts, controls), the judge's language plan, and
        discovery's sanity notes against the limits the judge kept from the previous round."""
        languages = {m: assign_languages(m, eps, config.languages, language_plan.get(m, {}))
                     for m, eps in self.endpoints.items()}
        before = previous_limits or {}
        notes = {m: found for m, eps in self.endpoints.items()
                 if (found := listing_notes({e.provider: ListedLimits(e.context_length, e.max_completion_tokens)
                                             for e in eps}, before.get(m, {})))}
        return dataclasses.replace(self, languages=languages, contracts=config.contracts,
                                   controls={m: config.controls.get(m, ()) for m in self.endpoints},
                                   notes=notes,
                                   optional={m: config.optional_contracts.get(m, ()) for m in self.endpoints})


def assign_languages(model: str, endpoints: tuple[Endpoint, ...], languages: tuple[str, ...],
                     planned: dict[str, str]) -> dict[str, str]:
    """The judge's plan where it has one; else languages[index of the tag in the sorted list % n]."""
    tags = sorted(ep.provider for ep in endpoints)
    out = {}
    for i, tag in enumerate(tags):
        lang = planned.get(tag)
        # A plan naming a language no longer configured falls back to the rotation.
        out[tag] = lang if lang in languages else languages[i % len(languages)]
    return out


def discover_plan(config: Config, client_settings: Upstream) -> RoundPlan:
    """Discover every configured model once (concurrently); failures are kept, never dropped.

    A listing with some unusable entries (malformed, duplicate tags) is not a failure of the
    model: those entries are dropped and reported (`RoundPlan.dropped`, discovery.json, the
    terminal summary) and the others probed, so one odd entry cannot block a model every round.
    A listing with no usable entry at all still fails the model's discovery."""
    return asyncio.run(_discover_all(config, client_settings))


async def _discover_all(config: Config, client_settings: Upstream) -> RoundPlan:
    async with PinnedClient(client_settings, overall_concurrency=max(1, len(config.models)),
                            deadline_s=config.probe.request_deadline_seconds) as client:
        results = await asyncio.gather(*(discover(client, m) for m in config.models), return_exceptions=True)
        thinking = await thinking_defaults(client)
    endpoints: dict[str, tuple[Endpoint, ...]] = {}
    failures: list[DiscoveryFailure] = []
    dropped: dict[str, tuple[str, ...]] = {}
    if not config.models:
        failures.append(DiscoveryFailure("(none)", f"{config.source}: models is empty: nothing to probe"))
    for model, res in zip(config.models, results, strict=True):
        if isinstance(res, DiscoveryError) and res.endpoints:
            endpoints[model], dropped[model] = with_thinking(res.endpoints, thinking.get(model)), res.problems
        elif isinstance(res, DiscoveryError):
            failures.append(DiscoveryFailure(model, str(res), res.status in AUTH_STATUSES))
        elif isinstance(res, BaseException):
            failures.append(DiscoveryFailure(model, f"discovery of {model!r} crashed: {type(res).__name__}: {res}"))
        else:
            endpoints[model] = with_thinking(res, thinking.get(model))
    return RoundPlan(endpoints=endpoints, failures=tuple(failures), dropped=dropped)


def with_thinking(endpoints: Sequence[Endpoint], defaults: ThinkingDefaults | None) -> tuple[Endpoint, ...]:
    """The model's thinking defaults (the models API) on each of its endpoints."""
    if defaults is None:
        return tuple(endpoints)
    return tuple(dataclasses.replace(e, thinks_by_default=defaults.by_default, thinking_mandatory=defaults.mandatory)
                 for e in endpoints)


def load_snapshot(path: Path) -> RoundPlan:
    """Replay a saved reports/discovery.json (a `round` wrapper or a bare plan)."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    return RoundPlan.from_json(raw.get("plan", raw) if isinstance(raw, dict) else raw)


def _endpoint_json(ep: Endpoint) -> dict[str, Any]:
    d = dataclasses.asdict(ep)
    d["supported_parameters"] = list(ep.supported_parameters)
    return d


def _endpoint_from(raw: dict[str, Any]) -> Endpoint:
    names = {f.name for f in dataclasses.fields(Endpoint)}
    # Snapshots saved before the endpoint's tag was named `provider` (as every file format names it) say `tag`.
    raw = {"provider": raw["tag"], **raw} if "tag" in raw else raw
    kw = {k: v for k, v in raw.items() if k in names}
    kw["supported_parameters"] = tuple(kw.get("supported_parameters", ()))
    kw["siblings"] = tuple(kw.get("siblings", ()))
    return Endpoint(**kw)
