"""The round plan: discovery once, the language of each endpoint, and the cases that follow.

The plugin builds the plan once, in pytest_configure, and writes it to reports/discovery.json;
`--discovery-snapshot FILE` replays a saved plan.

The plan is its own form, declared once (core/field_rules.py): `RoundPlan` (reports/discovery.json's
`plan`) and `DiscoveryFile` (reports/discovery.json: the plan and where it came from); an Endpoint is
its own declaration. `read_plan` reads a plan, `read_snapshot` a saved snapshot (`--discovery-snapshot`,
`canary validate`'s control check): a file it cannot read is refused with SnapshotError naming the key.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

import msgspec

from core.config import Config
from core.errors import InputError
from core.field_rules import read_document
from core.schema import read_as
from core.store import read_json
from core.tags import is_valid_model_id
from core.upstream import Upstream
from core.vocabulary import CONTRACTS, LANGUAGE, OPTIONAL_CONTRACTS, REFUSAL, ContractName
from judge.replies.listing import ListedLimits, listing_notes
from probes.http.client import PinnedClient
from probes.http.discovery import DiscoveryError, discover, endpoint_problems
from probes.http.models_info import ThinkingDefaults, thinking_defaults
from probes.http.records import Endpoint
from probes.round.cases import Case, DiscoveryCase, PlannedCase

SNAPSHOT_SCHEMA_VERSION: Final = 1
AUTH_STATUSES = (401, 402, 403)
SNAPSHOT_FIX = "run a round again to save a new one (reports/discovery.json), or pass another file"


class SnapshotError(InputError):
    """A discovery snapshot (reports/discovery.json) canary refuses to replay; the message names the key."""


def _refused(message: str) -> SnapshotError:
    return SnapshotError(f"{message}; {SNAPSHOT_FIX}")


@dataclass(frozen=True, slots=True)
class DiscoveryFailure:
    """A model whose discovery failed: the round probes none of its endpoints and is incomplete."""

    model: str
    message: str
    auth: bool = False  # the upstream refused the key (401/402/403)


class PlannedModel(msgspec.Struct, frozen=True):
    """A model's entry in the plan: its endpoints, sorted by tag."""

    endpoints: tuple[Endpoint, ...]


@dataclass(frozen=True, slots=True)
class RoundPlan:
    """What discovery and the configuration settle before the round collects its cases."""

    schema_version: Literal[1]                          # SNAPSHOT_SCHEMA_VERSION
    models: dict[str, PlannedModel]                     # model -> its endpoints
    failures: tuple[DiscoveryFailure, ...] = ()
    languages: dict[str, dict[str, str]] = dataclasses.field(default_factory=dict)
    contracts: tuple[ContractName, ...] = CONTRACTS
    controls: dict[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    # model -> the listing entries discovery dropped (malformed, duplicate), each a reason naming the
    # entry: reported, while the model's other endpoints are probed (the round stays complete).
    dropped: dict[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    # model -> discovery's sanity notes on its listed limits (judge/replies/listing.py): reported, decide nothing.
    notes: dict[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    # model -> the optional contracts canary.yaml's optional_contracts: opts it into (none: only the four).
    optional: dict[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    # model -> tag -> the contracts production evidence asked to confirm (the judge's state): each
    # such case runs three times (probes/round/engine.py).
    confirm: dict[str, dict[str, tuple[str, ...]]] = dataclasses.field(default_factory=dict)

    @classmethod
    def of(cls, endpoints: Mapping[str, tuple[Endpoint, ...]], **rest: Any) -> RoundPlan:
        """The plan of these endpoints (model -> endpoints, sorted by tag), and the rest as given."""
        return cls(SNAPSHOT_SCHEMA_VERSION, {m: PlannedModel(eps) for m, eps in endpoints.items()}, **rest)

    @property
    def endpoints(self) -> dict[str, tuple[Endpoint, ...]]:
        """Model -> its endpoints, sorted by tag."""
        return {m: planned.endpoints for m, planned in self.models.items()}

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
                    control = contract == REFUSAL and ep.provider in controls
                    out.append(Case(
                        model=model, contract=contract, endpoint=ep,
                        language=self.languages.get(model, {}).get(ep.provider) if contract == LANGUAGE else None,
                        control=control,
                        confirm=not control and contract in self.confirm.get(model, {}).get(ep.provider, ()),
                    ))
        return out

    def with_settings(self, config: Config, language_plan: dict[str, dict[str, str]],
                      previous_limits: Mapping[str, Mapping[str, ListedLimits]] | None = None,
                      confirm: dict[str, dict[str, tuple[str, ...]]] | None = None) -> RoundPlan:
        """Apply this round's configuration (contracts, controls), the judge's language plan and
        confirmations, and discovery's sanity notes against the limits the judge kept from the previous round."""
        languages = {m: assign_languages(m, eps, config.languages, language_plan.get(m, {}))
                     for m, eps in self.endpoints.items()}
        before = previous_limits or {}
        notes = {m: found for m, eps in self.endpoints.items()
                 if (found := listing_notes({e.provider: ListedLimits(e.context_length, e.max_completion_tokens)
                                             for e in eps}, before.get(m, {})))}
        return dataclasses.replace(self, languages=languages, contracts=config.contracts,
                                   controls={m: config.controls.get(m, ()) for m in self.endpoints},
                                   notes=notes,
                                   optional={m: config.optional_contracts.get(m, ()) for m in self.endpoints},
                                   confirm={m: c for m, c in (confirm or {}).items() if m in self.endpoints})


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
    return RoundPlan.of(endpoints, failures=tuple(failures), dropped=dropped)


def with_thinking(endpoints: Sequence[Endpoint], defaults: ThinkingDefaults | None) -> tuple[Endpoint, ...]:
    """The model's thinking defaults (the models API) on each of its endpoints."""
    if defaults is None:
        return tuple(endpoints)
    return tuple(dataclasses.replace(e, thinks_by_default=defaults.by_default, thinking_mandatory=defaults.mandatory)
                 for e in endpoints)


def read_snapshot(path: Path) -> DiscoveryFile:
    """A saved reports/discovery.json (or a bare plan, its `plan` alone), or SnapshotError
    naming the file and the key; a missing file is one too (StoreError: unreadable, not JSON)."""
    raw = read_json(path, "discovery snapshot", SNAPSHOT_FIX)
    if raw is None:
        raise SnapshotError(f"{path}: no such file; {SNAPSHOT_FIX}")
    if isinstance(raw, Mapping) and "plan" not in raw:
        doc = DiscoveryFile(plan=read_plan(raw, str(path), error=_refused))
    else:
        doc = read_as(raw, DiscoveryFile, source=str(path), error=_refused, ignore_unknown_keys=True)
    # The tags become node ids, file names, `provider.ignore` entries and commit lines: a replayed
    # plan is held to live discovery's rules (probes/http/discovery.py), a file that breaks one refused.
    for model, entry in doc.plan.models.items():
        problems = endpoint_problems(entry.endpoints) if is_valid_model_id(model) else ["not a model id"]
        if problems:
            raise _refused(f"{path}: plan.models.{model[:60]!r}: {problems[0]}")
    return doc


def read_plan(raw: Any, source: str | None = None, error: Callable[[str], Exception] = SnapshotError) -> RoundPlan:
    """A plan as `written` wrote it, or `error` naming the key (after `source`)."""
    return RoundPlan(**read_document(raw, RoundPlan, source=source, error=error))


class DiscoveryFile(msgspec.Struct, frozen=True, kw_only=True):
    """reports/discovery.json: the plan and where it came from, replayable with --discovery-snapshot.
    Holds no key (base_url is the upstream's address only). A bare plan reads with none of the rest."""

    schema_version: Literal[1] = SNAPSHOT_SCHEMA_VERSION
    round_id: str | None = None
    taken_at: str | None = None  # the round's start, as results.json's started_at
    clock: str | None = None     # real | virtual
    upstream: str | None = None  # openrouter | simulator | custom
    base_url: str | None = None
    controls_source: str | None = None
    plan: RoundPlan
