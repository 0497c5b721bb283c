"""Scenarios: the declarative description of models, endpoints and how each endpoint behaves
(simulator/README.md; a commented example: simulator/scenarios/default.yaml). The file is declared once
below (`ScenarioFile`, read with core/schema.py: a bad key raises ScenarioError naming the file and the
key path); the records above are what the simulator serves, with the derived defaults filled in.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from msgspec import UNSET, Meta, UnsetType

from core.errors import SimulatorError
from core.schema import Invalid, read_as
from simulator.faults import Fault, check_rates, parse_fault

SCENARIOS_DIR = Path(__file__).parent / "scenarios"
DEFAULT_SCENARIO = SCENARIOS_DIR / "default.yaml"

ALL_PARAMETERS: tuple[str, ...] = (
    "max_tokens", "temperature", "top_p", "top_k", "frequency_penalty", "presence_penalty",
    "repetition_penalty", "min_p", "seed", "stop", "response_format", "structured_outputs",
    "tools", "tool_choice", "logit_bias", "logprobs", "top_logprobs",
)  # fmt: skip


class ScenarioError(SimulatorError):
    """A scenario file or dict has a bad value; the message names the source and the key."""


@dataclass(frozen=True, slots=True)
class Behaviour:
    """How an endpoint answers: timing and faults. Phases replace some of these fields."""

    ttft_ms: float = 500.0
    jitter_ms: float = 0.0
    tokens_per_second: float = 50.0
    faults: tuple[Fault, ...] = ()
    available: bool = True  # False: the endpoint disappears from listings and routing


@dataclass(frozen=True, slots=True)
class Phase:
    """A behaviour that applies within a round range and/or a time window (bounds inclusive/from)."""

    behaviour: Behaviour
    from_round: int | None = None
    to_round: int | None = None
    from_time: datetime | None = None
    to_time: datetime | None = None

    def applies(self, round_number: int, now: datetime) -> bool:
        if self.from_round is not None and round_number < self.from_round:
            return False
        if self.to_round is not None and round_number > self.to_round:
            return False
        if self.from_time is not None and now < self.from_time:
            return False
        return not (self.to_time is not None and now >= self.to_time)


@dataclass(frozen=True, slots=True)
class SimulatedEndpoint:
    """One provider endpoint of a model; `tag` is its routing slug."""

    tag: str
    provider_name: str
    quantization: str | None
    pricing: Mapping[str, str]
    supported_parameters: tuple[str, ...]
    context_length: int
    max_completion_tokens: int | None
    behaviour: Behaviour
    phases: tuple[Phase, ...] = ()
    service_tier: str | None = None
    uptime: float = 99.5
    # The keys below are simulator/README.md's (Scenarios).
    positive_control: bool = False        # the scenario's own positive control (canary.yaml names real hosts)
    provider_header: str | None = None    # X-Provider-Name: None, display, slug, tag or a literal value
    reported_tier: str | None = None      # the `service_tier` responses report (None: the endpoint's own)
    strict_schema: str = "any"            # any | portable
    tool_enums: str = "any"               # any | strings
    throughput_order: str = "ascending"   # of `throughput_last_30m`'s percentiles in the listing

    @property
    def base_slug(self) -> str:
        return self.tag.split("/", 1)[0]

    def behaviour_at(self, round_number: int, now: datetime) -> Behaviour:
        """The last phase that applies wins; with none, the base behaviour."""
        chosen = self.behaviour
        for phase in self.phases:
            if phase.applies(round_number, now):
                chosen = phase.behaviour
        return chosen


@dataclass(frozen=True, slots=True)
class Model:
    """A model id with its endpoints; `permaslug` is what responses report as `model`."""

    id: str
    name: str
    permaslug: str
    description: str
    created: int
    endpoints: tuple[SimulatedEndpoint, ...]
    # Raw entries appended to the endpoints listing as they are (a malformed entry, a duplicate
    # tag): what a real listing may hold; they are never routable.
    extra_listing_entries: tuple[Any, ...] = ()


@dataclass(frozen=True, slots=True)
class RateLimit:
    """The key's rate limit (the scenario's `rate_limit:`): more than `concurrent` chat requests in flight get
    a 429 with `Retry-After: retry_after`."""

    concurrent: Annotated[int, Meta(ge=1)]
    retry_after: Annotated[int, Meta(ge=0)] = 1


@dataclass(frozen=True, slots=True)
class KeyLimit:
    """The key's spending limit in USD (the scenario's `key:`), as GET /key reports it and a costly chat
    request meets it (OpenRouter's bare 402); `refused`: GET /key itself answers that status."""

    limit: Annotated[float, Meta(ge=0)] | None = None   # null: no limit
    usage: Annotated[float, Meta(ge=0)] = 0.0
    refused: Literal[401, 402, 403] | None = None

    @property
    def remaining(self) -> float | None:
        return None if self.limit is None else max(0.0, self.limit - self.usage)


@dataclass(frozen=True, slots=True)
class Scenario:
    """Everything the simulator serves."""

    name: str
    description: str
    models: tuple[Model, ...]
    keepalive_ms: float = 300.0
    usage_shape: str = "mixed"
    source: str = "<dict>"
    rate_limit: RateLimit | None = None
    key: KeyLimit = KeyLimit()

    def model(self, model_id: str) -> Model | None:
        for model in self.models:
            if model_id in (model.id, model.permaslug):
                return model
        return None

    def controls(self) -> dict[str, tuple[str, ...]]:
        """{model id: tags of its endpoints marked positive_control} (models without one omitted)."""
        out = {}
        for model in self.models:
            tags = tuple(e.tag for e in model.endpoints if e.positive_control)
            if tags:
                out[model.id] = tags
        return out


def scenario_file(path: str | Path | None = None) -> Path:
    """The file a scenario argument names: a path, a bundled scenario's name ("healthy"), or None (default)."""
    file = Path(path) if path is not None else DEFAULT_SCENARIO
    if not file.exists() and (SCENARIOS_DIR / f"{path}.yaml").exists():
        file = SCENARIOS_DIR / f"{path}.yaml"
    return file


def load_scenario(path: str | Path | None = None) -> Scenario:
    """Load a scenario file, or a bundled one by name ("healthy"); None loads the default."""
    file = scenario_file(path)
    try:
        raw = yaml.safe_load(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ScenarioError(f"{file}: cannot read scenario: {exc.strerror or exc}") from exc
    except yaml.YAMLError as exc:
        raise ScenarioError(f"{file}: not valid YAML: {exc}") from exc
    return scenario_from_dict(raw, source=str(file))


def scenario_from_dict(data: Any, *, source: str = "<dict>") -> Scenario:
    """Build a scenario from plain data (the same shape as the YAML file)."""
    return _scenario(read_as(data, ScenarioFile, source=source, error=ScenarioError), source)


# -- the file's declaration (core/schema.py): every key, its type, range and default -------------

Ms = Annotated[float, Meta(ge=0)]


@dataclass(frozen=True, slots=True)
class BehaviourFile:
    """`behaviour:` (and the behaviour keys of a phase): an absent key keeps the value beneath it."""

    ttft_ms: Ms | UnsetType = UNSET
    jitter_ms: Ms | UnsetType = UNSET
    tokens_per_second: Annotated[float, Meta(gt=0)] | UnsetType = UNSET
    faults: dict[str, Any] | None | UnsetType = UNSET  # fault name -> its parameters (simulator/faults.py)
    available: bool | UnsetType = UNSET

    def __post_init__(self) -> None:
        _faults(self.faults)  # the catalogue's own checks, at the key's path

    def over(self, base: Behaviour) -> Behaviour:
        changes = {f: getattr(self, f) for f in ("ttft_ms", "jitter_ms", "tokens_per_second", "available")
                   if getattr(self, f) is not UNSET}
        if self.faults is not UNSET:
            changes["faults"] = _faults(self.faults)
        return dataclasses.replace(base, **changes)


@dataclass(frozen=True, slots=True)
class PhaseFile(BehaviourFile):
    """One entry of `phases:`: a behaviour within a round range and/or a time window."""

    from_round: Annotated[int, Meta(ge=1)] | None = None
    to_round: Annotated[int, Meta(ge=1)] | None = None
    from_time: datetime | None = None
    to_time: datetime | None = None

    def __post_init__(self) -> None:
        if (self.from_round, self.to_round, self.from_time, self.to_time) == (None, None, None, None):
            raise Invalid("", "a phase needs from_round, to_round, from_time or to_time")
        BehaviourFile.__post_init__(self)


PRICE_KEYS = ("prompt", "completion", "request", "internal_reasoning", "web_search", "input_cache_read",
              "input_cache_write")


@dataclass(frozen=True, slots=True)
class PricingFile:
    """An endpoint's `pricing` as listed, the optional components of real listings included (simulator/README.md)."""

    # Decimal strings, as OpenRouter sends them: a float would print as 2.5e-07.
    prompt: str = "0.00000025"
    completion: str = "0.00000085"
    request: str | None = None
    internal_reasoning: str | None = None
    web_search: str | None = None
    input_cache_read: str | None = None
    input_cache_write: str | None = None

    def __post_init__(self) -> None:
        for key in PRICE_KEYS:
            text = getattr(self, key)
            try:
                if text is not None and float(text) < 0:
                    raise ValueError
            except ValueError:
                raise Invalid(key, f"expected a non-negative decimal string, got {text!r}") from None


@dataclass(frozen=True, slots=True)
class EndpointFile:
    tag: str  # the routing slug, lowercase: provider/variant
    provider_name: str | None = None  # default: from the tag (`aurora/fp8` -> `Aurora`)
    quantization: str | None | UnsetType = UNSET  # default: the tag's variant
    pricing: PricingFile = field(default_factory=PricingFile)
    supported_parameters: tuple[str, ...] = ALL_PARAMETERS
    context_length: Annotated[int, Meta(gt=0)] = 163840
    max_completion_tokens: Annotated[int, Meta(gt=0)] | None = 16384
    behaviour: BehaviourFile = field(default_factory=BehaviourFile)
    phases: tuple[PhaseFile, ...] = ()
    service_tier: str | None = None
    uptime: Annotated[float, Meta(ge=0)] = 99.5
    positive_control: bool = False
    provider_header: str | None = None
    reported_tier: str | None = None
    strict_schema: Literal["any", "portable"] = "any"
    tool_enums: Literal["any", "strings"] = "any"
    throughput_order: Literal["ascending", "descending"] = "ascending"

    def __post_init__(self) -> None:
        if not self.tag or self.tag != self.tag.strip() or self.tag.lower() != self.tag:
            raise Invalid("tag", f"expected a lowercase slug, got {self.tag!r}")


@dataclass(frozen=True, slots=True)
class ModelFile:
    id: str  # author/slug
    endpoints: tuple[EndpointFile, ...]
    name: str | None = None
    permaslug: str | None = None
    description: str | None = None
    created: Annotated[int, Meta(ge=0)] = 1742824755
    extra_listing_entries: tuple[Any, ...] = ()

    def __post_init__(self) -> None:
        if self.id.count("/") != 1:
            raise Invalid("id", f"expected author/slug, got {self.id!r}")
        tags = [e.tag for e in self.endpoints]
        if len(set(tags)) != len(tags):
            raise Invalid("endpoints", "endpoint tags must be unique")


@dataclass(frozen=True, slots=True)
class ScenarioFile:
    models: Annotated[tuple[ModelFile, ...], Meta(min_length=1)]
    name: str | None = None  # default: the file's name
    description: str | None = None
    keepalive_ms: Annotated[float, Meta(gt=0)] = 300.0
    usage_shape: Literal["null_finish", "empty_choices", "repeat_finish", "mixed"] = "mixed"
    rate_limit: RateLimit | None = None
    key: KeyLimit = KeyLimit()

    def __post_init__(self) -> None:
        ids = [m.id for m in self.models]
        if len(set(ids)) != len(ids):
            raise Invalid("models", "model ids must be unique")


def _faults(raw: dict[str, Any] | None | UnsetType) -> tuple[Fault, ...]:
    if raw is UNSET or raw is None:
        return ()
    parsed: list[Fault] = []
    for name, params in raw.items():
        try:
            parsed.append(parse_fault(str(name), params))
        except Invalid as exc:
            raise Invalid(f"faults.{exc.where}", exc.why) from None
    try:
        check_rates(parsed)
    except Invalid as exc:
        raise Invalid("faults", exc.why) from None
    return tuple(parsed)


# -- from the file to the records the simulator serves: the derived defaults ---------------------

def _scenario(f: ScenarioFile, source: str) -> Scenario:
    return Scenario(name=f.name or Path(source).stem, description=f.description or "",
                    models=tuple(map(_model, f.models)), keepalive_ms=f.keepalive_ms,
                    usage_shape=f.usage_shape, source=source, rate_limit=f.rate_limit, key=f.key)


def _model(m: ModelFile) -> Model:
    return Model(id=m.id, name=m.name or m.id, permaslug=m.permaslug or m.id,
                 description=m.description or f"{m.id} (simulated)", created=m.created,
                 endpoints=tuple(map(_endpoint, m.endpoints)), extra_listing_entries=m.extra_listing_entries)


def _endpoint(e: EndpointFile) -> SimulatedEndpoint:
    base = e.behaviour.over(Behaviour())
    quantization = (e.tag.split("/")[1] if "/" in e.tag else None) if e.quantization is UNSET else e.quantization
    pricing = {k: v for k, v in dataclasses.asdict(e.pricing).items() if v is not None}
    return SimulatedEndpoint(
        tag=e.tag, provider_name=e.provider_name or base_title(e.tag), quantization=quantization,
        pricing=pricing, supported_parameters=e.supported_parameters, context_length=e.context_length,
        max_completion_tokens=e.max_completion_tokens, behaviour=base,
        phases=tuple(_phase(p, base) for p in e.phases), service_tier=e.service_tier, uptime=e.uptime,
        positive_control=e.positive_control, provider_header=e.provider_header, reported_tier=e.reported_tier,
        strict_schema=e.strict_schema, tool_enums=e.tool_enums, throughput_order=e.throughput_order,
    )


def _phase(p: PhaseFile, base: Behaviour) -> Phase:
    def utc(t: datetime | None) -> datetime | None:  # a time without a zone is UTC
        return t if t is None or t.tzinfo else t.replace(tzinfo=UTC)

    return Phase(behaviour=p.over(base), from_round=p.from_round, to_round=p.to_round,
                 from_time=utc(p.from_time), to_time=utc(p.to_time))


def base_title(tag: str) -> str:
    """A display name derived from a tag when the scenario gives none: `aurora/fp8` -> `Aurora`."""
    return tag.split("/", 1)[0].replace("-", " ").title()

