"""Scenarios: the declarative description of models, endpoints and how each endpoint behaves.

A scenario is YAML (or a dict). Every key is checked; a bad value raises `ScenarioError` naming
the file and the key path (`default.yaml: models[0].endpoints[3].behaviour.faults.hang.seconds`).
See simulator/scenarios/default.yaml for a commented example.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from core.errors import SimulatorError
from core.times import TimeFormatError, parse_time
from simulator.faults import Fault, check_rates, parse_fault

SCENARIOS_DIR = Path(__file__).parent / "scenarios"
DEFAULT_SCENARIO = SCENARIOS_DIR / "default.yaml"

ALL_PARAMETERS: tuple[str, ...] = (
    "max_tokens", "temperature", "top_p", "top_k", "frequency_penalty", "presence_penalty",
    "repetition_penalty", "min_p", "seed", "stop", "response_format", "structured_outputs",
    "tools", "tool_choice", "logit_bias", "logprobs", "top_logprobs",
)  # fmt: skip
USAGE_SHAPES = ("null_finish", "empty_choices", "repeat_finish", "mixed")


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
class Endpoint:
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
    # Known to filter supported roleplay: the refusal probe's positive control for rounds against
    # this scenario (the scenario brings its own control: canary.yaml names real hosts only).
    positive_control: bool = False
    # X-Provider-Name on responses (undocumented upstream header): None sends none; `display`,
    # `slug` or `tag` send that name of the endpoint; any other string is sent as it is.
    provider_header: str | None = None
    # `service_tier` the responses report (top level of the usage chunk and of a body); None: the
    # endpoint's own tier when it has one, else `default`. A tier endpoint answering `default` is a
    # request shed to the default tier (docs: guides/features/service-tiers).
    reported_tier: str | None = None
    # Which JSON Schema keywords its strict mode takes: `any`, or `portable` (type, properties,
    # enum, required, additionalProperties, items): a strict schema with any other keyword gets a
    # 400, as an OpenAI-family strict mode answered `minimum` (docs/openrouter-wire.md §2).
    strict_schema: str = "any"

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
    endpoints: tuple[Endpoint, ...]
    # Raw entries appended to the endpoints listing as they are (a malformed entry, a duplicate
    # tag): what a real listing may hold; they are never routable.
    extra_listing_entries: tuple[Any, ...] = ()


@dataclass(frozen=True, slots=True)
class RateLimit:
    """The key's rate limit as the simulator applies it: more than `concurrent` chat requests in
    flight get a 429 with `Retry-After: retry_after` (OpenRouter docs, errors-and-debugging)."""

    concurrent: int
    retry_after: int = 1


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
    return _Parser(source).scenario(data)


class _Parser:
    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, where: str, why: str) -> ScenarioError:
        return ScenarioError(f"{self.source}: {where}: {why}")

    def mapping(self, value: Any, where: str, allowed: set[str], required: AbstractSet[str] = frozenset()) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise self.fail(where or "(top level)", f"expected a mapping, got {type(value).__name__}")
        for key in value:
            if key not in allowed:
                raise self.fail(_join(where, str(key)), f"unknown key (allowed: {', '.join(sorted(allowed))})")
        for key in required:
            if key not in value:
                raise self.fail(_join(where, key), "required key is missing")
        return value

    def typed(self, value: Any, where: str, kind: type | tuple[type, ...], what: str) -> Any:
        if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
            raise self.fail(where, f"expected {what}, got {value!r}")
        if not isinstance(value, kind):
            raise self.fail(where, f"expected {what}, got {value!r}")
        return value

    def number(self, value: Any, where: str, minimum: float = 0, positive: bool = False) -> float:
        number = float(self.typed(value, where, (int, float), "a number"))
        if number < minimum or (positive and number <= 0):
            raise self.fail(where, f"expected a number {'>' if positive else '>='} {minimum}, got {value!r}")
        return number

    def scenario(self, data: Any) -> Scenario:
        top = self.mapping(data, "", {"name", "description", "models", "keepalive_ms", "usage_shape", "rate_limit"},
                           {"models"})
        models = self.typed(top["models"], "models", list, "a list of models")
        if not models:
            raise self.fail("models", "expected at least one model")
        usage_shape = top.get("usage_shape", "mixed")
        if usage_shape not in USAGE_SHAPES:
            raise self.fail("usage_shape", f"expected one of {', '.join(USAGE_SHAPES)}, got {usage_shape!r}")
        parsed = tuple(self.model(m, f"models[{i}]") for i, m in enumerate(models))
        ids = [m.id for m in parsed]
        if len(set(ids)) != len(ids):
            raise self.fail("models", "model ids must be unique")
        return Scenario(
            name=str(top.get("name") or Path(self.source).stem),
            description=str(top.get("description") or ""),
            models=parsed,
            keepalive_ms=self.number(top.get("keepalive_ms", 300), "keepalive_ms", positive=True),
            usage_shape=usage_shape,
            source=self.source,
            rate_limit=self.rate_limit(top["rate_limit"], "rate_limit") if top.get("rate_limit") else None,
        )

    def rate_limit(self, data: Any, where: str) -> RateLimit:
        r = self.mapping(data, where, {"concurrent", "retry_after"}, {"concurrent"})
        return RateLimit(concurrent=int(self.number(r["concurrent"], f"{where}.concurrent", minimum=1)),
                         retry_after=int(self.number(r.get("retry_after", 1), f"{where}.retry_after")))

    def model(self, data: Any, where: str) -> Model:
        keys = {"id", "name", "permaslug", "description", "created", "endpoints", "extra_listing_entries"}
        m = self.mapping(data, where, keys, {"id", "endpoints"})
        model_id = self.typed(m["id"], f"{where}.id", str, "a model id like author/slug")
        if model_id.count("/") != 1:
            raise self.fail(f"{where}.id", f"expected author/slug, got {model_id!r}")
        endpoints = self.typed(m["endpoints"], f"{where}.endpoints", list, "a list of endpoints")
        parsed = tuple(self.endpoint(e, f"{where}.endpoints[{i}]") for i, e in enumerate(endpoints))
        tags = [e.tag for e in parsed]
        if len(set(tags)) != len(tags):
            raise self.fail(f"{where}.endpoints", "endpoint tags must be unique")
        return Model(
            id=model_id,
            name=str(m.get("name") or model_id),
            permaslug=str(m.get("permaslug") or model_id),
            description=str(m.get("description") or f"{model_id} (simulated)"),
            created=int(self.number(m.get("created", 1742824755), f"{where}.created")),
            endpoints=parsed,
            extra_listing_entries=tuple(self.typed(m.get("extra_listing_entries", []),
                                                   f"{where}.extra_listing_entries", list, "a list")),
        )

    def endpoint(self, data: Any, where: str) -> Endpoint:
        keys = {
            "tag", "provider_name", "quantization", "pricing", "supported_parameters", "context_length",
            "max_completion_tokens", "behaviour", "phases", "service_tier", "uptime", "positive_control",
            "provider_header", "reported_tier", "strict_schema",
        }  # fmt: skip
        e = self.mapping(data, where, keys, {"tag"})
        tag = self.typed(e["tag"], f"{where}.tag", str, "a routing slug like provider/variant")
        if not tag or tag != tag.strip() or tag.lower() != tag:
            raise self.fail(f"{where}.tag", f"expected a lowercase slug, got {tag!r}")
        base = self.behaviour(e.get("behaviour", {}), f"{where}.behaviour", Behaviour())
        phases = self.typed(e.get("phases", []), f"{where}.phases", list, "a list of phases")
        params = self.typed(
            e.get("supported_parameters", list(ALL_PARAMETERS)), f"{where}.supported_parameters", list, "a list"
        )
        max_completion = e.get("max_completion_tokens", 16384)
        return Endpoint(
            tag=tag,
            provider_name=str(e.get("provider_name") or base_title(tag)),
            quantization=e.get("quantization", tag.split("/")[1] if "/" in tag else None),
            pricing=self.pricing(e.get("pricing", {}), f"{where}.pricing"),
            supported_parameters=tuple(str(p) for p in params),
            context_length=int(self.number(e.get("context_length", 163840), f"{where}.context_length", positive=True)),
            max_completion_tokens=(
                None if max_completion is None
                else int(self.number(max_completion, f"{where}.max_completion_tokens", positive=True))
            ),  # fmt: skip
            behaviour=base,
            phases=tuple(self.phase(p, f"{where}.phases[{i}]", base) for i, p in enumerate(phases)),
            service_tier=e.get("service_tier"),
            uptime=self.number(e.get("uptime", 99.5), f"{where}.uptime"),
            positive_control=self.typed(e.get("positive_control", False), f"{where}.positive_control", bool,
                                        "true or false"),
            provider_header=self.optional_text(e.get("provider_header"), f"{where}.provider_header"),
            reported_tier=self.optional_text(e.get("reported_tier"), f"{where}.reported_tier"),
            strict_schema=self.one_of(e.get("strict_schema", "any"), f"{where}.strict_schema", ("any", "portable")),
        )

    def one_of(self, value: Any, where: str, options: tuple[str, ...]) -> str:
        if value not in options:
            raise self.fail(where, f"expected one of {', '.join(options)}, got {value!r}")
        return str(value)

    def optional_text(self, value: Any, where: str) -> str | None:
        return None if value is None else str(self.typed(value, where, str, "a string"))

    def pricing(self, data: Any, where: str) -> Mapping[str, str]:
        p = self.mapping(data, where, {"prompt", "completion", "request"})
        out = {"prompt": "0.00000025", "completion": "0.00000085"}
        for key, value in p.items():
            # Decimal strings, as OpenRouter sends them: a float would print as 2.5e-07.
            text = self.typed(value, f"{where}.{key}", str, 'a decimal string like "0.00000025"')
            try:
                if float(text) < 0:
                    raise ValueError
            except ValueError:
                raise self.fail(f"{where}.{key}", f"expected a non-negative decimal string, got {value!r}") from None
            out[key] = text
        return out

    def behaviour(self, data: Any, where: str, base: Behaviour, extra: frozenset[str] = frozenset()) -> Behaviour:
        keys = {"ttft_ms", "jitter_ms", "tokens_per_second", "faults", "available"} | extra
        b = self.mapping(data, where, keys)
        changes: dict[str, Any] = {}
        for key in ("ttft_ms", "jitter_ms"):
            if key in b:
                changes[key] = self.number(b[key], f"{where}.{key}")
        if "tokens_per_second" in b:
            tps = self.number(b["tokens_per_second"], f"{where}.tokens_per_second", positive=True)
            changes["tokens_per_second"] = tps
        if "available" in b:
            changes["available"] = self.typed(b["available"], f"{where}.available", bool, "true or false")
        if "faults" in b:
            changes["faults"] = self.faults(b["faults"] or {}, f"{where}.faults")
        return dataclasses.replace(base, **changes)

    def faults(self, data: Any, where: str) -> tuple[Fault, ...]:
        raw = self.mapping(data, where, set(data) if isinstance(data, Mapping) else set())
        parsed: list[Fault] = []
        for name, params in raw.items():
            try:
                parsed.append(parse_fault(str(name), params))
            except ValueError as exc:
                key, _, why = str(exc).partition(": ")
                raise self.fail(f"{where}.{key}", why) from None
        try:
            check_rates(parsed)
        except ValueError as exc:
            raise self.fail(where, str(exc)) from None
        return tuple(parsed)

    def phase(self, data: Any, where: str, base: Behaviour) -> Phase:
        bounds = {"from_round", "to_round", "from_time", "to_time"}
        p = self.mapping(data, where, bounds | {"ttft_ms", "jitter_ms", "tokens_per_second", "faults", "available"})
        if not bounds & set(p):
            raise self.fail(where, "a phase needs from_round, to_round, from_time or to_time")
        rounds = {k: int(self.number(p[k], f"{where}.{k}", minimum=1)) for k in ("from_round", "to_round") if k in p}
        times = {k: self.time(p[k], f"{where}.{k}") for k in ("from_time", "to_time") if k in p}
        body = {k: v for k, v in p.items() if k not in bounds}
        return Phase(
            behaviour=self.behaviour(body, where, base),
            from_round=rounds.get("from_round"), to_round=rounds.get("to_round"),
            from_time=times.get("from_time"), to_time=times.get("to_time"),
        )

    def time(self, value: Any, where: str) -> datetime:
        if isinstance(value, datetime):  # YAML parses unquoted timestamps itself
            parsed = value
        else:
            try:
                parsed = parse_time(str(value), where)
            except TimeFormatError:
                raise self.fail(where, f"expected an ISO 8601 time like 2026-11-29T22:30:00Z, got {value!r}") from None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def base_title(tag: str) -> str:
    """A display name derived from a tag when the scenario gives none: `aurora/fp8` -> `Aurora`."""
    return tag.split("/", 1)[0].replace("-", " ").title()


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key
