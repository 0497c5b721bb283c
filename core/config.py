"""canary.yaml: the one configuration file, declared once and loaded into typed settings.

`ConfigFile` and its sections are the file's declaration (core/schema.py); `rules:` is
core/policy.py's `Rules`, and the docs' table of keys is generated from it (core/config_docs.py).
`Config` is what the code uses: the same sections, with `rules:`, `languages` and `mode` as the Policy.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from msgspec import Meta

from core.errors import CanaryError
from core.layers import LAYERS, Layer
from core.policy import OBSERVE, Mode, Policy, Rules
from core.schema import Invalid, read_as
from core.tags import is_valid_model_id
from core.vocabulary import CONTRACTS, LANGUAGES, OPTIONAL_CONTRACTS, ContractName

DEFAULT_CONFIG_FILE = "canary.yaml"

ReasoningEffort = Literal["max", "xhigh", "high", "medium", "low", "minimal", "none"]  # OpenRouter's
ReasoningControls = Literal["auto", "always"]
# A model's entry under `controls:` and under `optional_contracts:` (the title names it in an error).
EndpointTags = Annotated[tuple[str, ...], Meta(title="a list of endpoint tags")]
OptionalContracts = Annotated[tuple[ContractName, ...], Meta(
    title=f"a list of optional contracts ({', '.join(OPTIONAL_CONTRACTS)})")]
_BRANCH_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,99}")


class ConfigError(CanaryError, ValueError):
    """canary.yaml (or an override) holds a value canary cannot use."""


@dataclass(frozen=True, slots=True)
class ProbeSettings:
    """canary.yaml `probe:`: what every probe request asks for and how long it may take."""

    ttft_seconds: Annotated[float, Meta(ge=0.1, description=(
        "no answer text within this many seconds fails the latency contract"))] = 10.0
    request_deadline_seconds: Annotated[float, Meta(ge=0.1, description=(
        "overall deadline of one request (httpx's read timeout is per read)"))] = 30.0
    max_tokens: Annotated[int, Meta(ge=16, description="cap on every probe's completion (latency: 32)")] = 200
    language_confirmations: Annotated[int, Meta(ge=0, description=(
        "extra attempts after a language anomaly (majority of 3), and after a refusal-probe reply that "
        "stops under 160 characters (the judge compares the lengths with the peers')"))] = 2
    temperature: Annotated[float, Meta(ge=0.0, description="sent only to endpoints that list `temperature`")] = 0.7
    reasoning_effort: Annotated[ReasoningEffort | None, Meta(description=(
        "reasoning endpoints only: OpenRouter's `reasoning.effort`; `null` sends "
        "`probe.reasoning_max_tokens` as `reasoning.max_tokens` instead"))] = "low"
    # benchmarks/cost.py measures what it costs.
    reasoning_max_tokens: Annotated[int, Meta(ge=1, description=(
        "reasoning endpoints only: room for thinking added to every completion budget, so the answer "
        "keeps `probe.max_tokens` (1024 is Anthropic's minimum thinking budget)"))] = 1024
    # `auto`: sending an effort to a hybrid model whose thinking is off turns it on, so the probe
    # would time thinking the product never waits for.
    reasoning_controls: Annotated[ReasoningControls, Meta(description=(
        "`auto`: reasoning controls only where the model thinks anyway (thinking on by default or "
        "mandatory in the models API, or not said); `always`: to every endpoint that lists them, as "
        "your product does if it sends them"))] = "auto"

    def __post_init__(self) -> None:
        if self.request_deadline_seconds < self.ttft_seconds:
            raise Invalid("request_deadline_seconds", "must be at least probe.ttft_seconds")


@dataclass(frozen=True, slots=True)
class ConcurrencySettings:
    """canary.yaml `concurrency:`."""

    # 256 lets a 64-endpoint round (4 requests each) go out at once and a 256-endpoint round
    # finish in ~4 waves (benchmarks/round_scaling.py); 32 took 3x the longest request at 64
    # endpoints. The per-provider cap, not this one, is what protects each host.
    overall: Annotated[int, Meta(ge=1, description=(
        "simultaneous requests of a round, all providers; the most the "
        "round sends at once: a 429 naming no provider (our key's) lowers the cap to what the upstream "
        "accepted, answers let it grow back (`probes/http/limiter.py`), and each 429's `Retry-After` is "
        "waited once when the request still fits its deadline"))] = 256
    per_provider: Annotated[int, Meta(ge=1, description=(
        "simultaneous requests to one provider (a clean round sends 4); a 429 relayed from that provider "
        "(`metadata.provider_name`) lowers this cap, for that provider only, as the overall one"))] = 4


@dataclass(frozen=True, slots=True)
class PathSettings:
    """canary.yaml `paths:` (relative to the working directory)."""

    reports: Annotated[Path, Meta(description="one round's output")] = Path("reports")
    state: Annotated[Path, Meta(description="the judge's state")] = Path("state/canary-state.json")
    audit: Annotated[Path, Meta(description="the audit log")] = Path("state/audit.jsonl")
    builtin: Annotated[Path, Meta(description="built-in exclusions (reviewed, never expire)")] = (
        Path("exclusions/builtin.yaml"))
    incidents: Annotated[Path, Meta(description="runtime incident exclusions")] = Path("exclusions/incidents.yaml")
    silences: Annotated[Path, Meta(description=(
        "silences: what notifications and incident issues keep quiet about, until when (`canary silence`); "
        "never read by the judge"))] = Path("exclusions/silences.yaml")
    maintenance: Annotated[Path, Meta(description=(
        "providers' announced maintenance windows: a failed round inside one is not counted"))] = (
        Path("exclusions/maintenance.yaml"))
    history: Annotated[Path, Meta(description=(
        "the round history; left at the default it is the folder `history` next to `paths.state`, so it "
        "lands wherever the state lives; it must be inside the repository: `canary commit` commits it "
        "with the state"))] = Path("state/history")
    # A branch of its own, so a protected main never blocks the round (docs/workflow.md, installing it).
    state_branch: Annotated[str, Meta(description=(
        "the branch `canary commit` pushes `paths.state`, `paths.audit` and the history folder to (and "
        "`canary fetch-state` reads)"))] = "canary-state"

    def layer_paths(self, layers: Iterable[Layer] = LAYERS) -> dict[str, Path]:
        """{layer name: its file} for `layers` (core/layers.py), each from `paths.<layer.setting>`."""
        return {layer.name: getattr(self, layer.setting) for layer in layers}

    def __post_init__(self) -> None:
        branch = self.state_branch
        if not branch:  # the judge's files once could be committed to the checked-out branch (issue 38)
            raise Invalid("state_branch", "must name the branch the judge's files live on (default canary-state); "
                          "they are no longer committed to the checked-out branch (docs/workflow.md)")
        if (not _BRANCH_NAME.fullmatch(branch) or ".." in branch or "//" in branch
                or branch.endswith(("/", ".", ".lock"))):
            raise Invalid("state_branch", f"must be a branch name like canary-state (letters, digits, '.', '_', "
                          f"'-', '/'); got {branch!r}")


@dataclass(frozen=True, slots=True)
class SiteSettings:
    """canary.yaml `site:`: the status page."""

    # 90 min: three missed half-hourly rounds (GitHub delays scheduled runs by minutes, and drops some).
    stale_after_minutes: Annotated[float, Meta(ge=1.0, description=(
        "the status page turns visibly stale (red header, banner, `STALE` title) when its newest round "
        "is older than this, computed in the browser at view time; `canary site --stale-after` overrides "
        "it for one build"))] = 90.0


@dataclass(frozen=True, slots=True)
class DigestSettings:
    """canary.yaml `digest:`: the daily summary message (`canary digest`)."""

    every_hours: Annotated[float, Meta(ge=0.0, description=(
        "at most one digest per this many hours, sent only when something changed since the last one; "
        "0 turns the digest off"))] = 24.0
    hour_utc: Annotated[Annotated[int, Meta(ge=0, le=23)] | None, Meta(description=(
        "the hour of the day (UTC, 0-23) digests are due at, and every `every_hours` after it (the first "
        "round from then on sends it); `null`: `every_hours` after the last one sent, whenever that was"))] = None


@dataclass(frozen=True, slots=True)
class ConfigFile:
    """canary.yaml as written: every key optional."""

    mode: Annotated[Mode, Meta(description=(
        "`observe`: record *would suspend* only; `enforce`: suspensions reach `provider.ignore`"))] = OBSERVE
    models: Annotated[tuple[str, ...], Meta(description=(
        "the product's chat models; every endpoint of each is probed"))] = ()
    controls: Annotated[dict[str, EndpointTags], Meta(description=(
        "model → endpoint tags known to filter: the refusal probe's positive control. Name only hosts "
        "OpenRouter really serves for the model; a configured control that is not probed makes the "
        "model's refusal passes inconclusive and is reported every round (`control_unprobed`). Without "
        "an entry, refusal passes count. On the bundled simulator the scenario's own controls replace "
        "these"))] = field(default_factory=dict)
    optional_contracts: Annotated[dict[str, OptionalContracts], Meta(description=(
        "model → the optional contracts it runs (`tools`; `stop`, `fidelity`): each adds at most one request "
        "per endpoint per round (two more on an anomaly)"))] = field(default_factory=dict)
    contracts: Annotated[tuple[ContractName, ...], Meta(min_length=1, description=(
        "which contracts may run (an optional one only for the models `optional_contracts` names it for)"))] = CONTRACTS
    languages: Annotated[tuple[str, ...], Meta(min_length=1, description=(
        "rotation order of the language probe"))] = LANGUAGES
    probe: ProbeSettings = field(default_factory=ProbeSettings)
    concurrency: ConcurrencySettings = field(default_factory=ConcurrencySettings)
    rules: Rules = field(default_factory=Rules)
    paths: PathSettings = field(default_factory=PathSettings)
    site: SiteSettings = field(default_factory=SiteSettings)
    digest: DigestSettings = field(default_factory=DigestSettings)

    def __post_init__(self) -> None:
        for model, tags in self.controls.items():
            if not all(t.strip() for t in tags):
                raise Invalid(f"controls.{model}", f"expected a list of endpoint tags, got {list(tags)!r}")
        for model, names in self.optional_contracts.items():
            for name in names:
                if name not in OPTIONAL_CONTRACTS:
                    raise Invalid(f"optional_contracts.{model}", f"unknown optional contract '{name}'; "
                                  f"choose from {', '.join(OPTIONAL_CONTRACTS)}")
        if len(set(self.models)) != len(self.models):
            raise Invalid("models", "lists a model twice")
        for m in self.models:
            if not is_valid_model_id(m):  # as discovery checks them: an id reaches URLs, files and Markdown
                raise Invalid("models", f"{ascii(m)[:80]} is not an OpenRouter model id: author/slug, segments "
                                 "of letters, digits and ._:- joined by /, at most 128 characters")
        for lang in self.languages:
            if lang not in LANGUAGES:
                raise Invalid("languages", f"{lang!r} is not one of the 17 supported codes ({', '.join(LANGUAGES)})")


@dataclass(frozen=True, slots=True)
class Config:
    models: tuple[str, ...]
    controls: dict[str, tuple[str, ...]]
    contracts: tuple[ContractName, ...]
    languages: tuple[str, ...]
    probe: ProbeSettings
    concurrency: ConcurrencySettings
    rules: Policy  # canary.yaml's rules:, languages and mode, as the judge uses them
    paths: PathSettings
    source: str = field(default="<defaults>")
    site: SiteSettings = field(default_factory=SiteSettings)
    digest: DigestSettings = field(default_factory=DigestSettings)
    optional_contracts: dict[str, tuple[ContractName, ...]] = field(default_factory=dict)  # model -> its optional ones

    @property
    def mode(self) -> Mode:
        """canary.yaml's mode (observe or enforce), kept in the Policy the judge applies."""
        return self.rules.mode


def load_config(path: str | os.PathLike[str] | None = None) -> Config:
    """Load canary.yaml (or `path`); a missing default file means all defaults."""
    file = Path(path) if path is not None else Path(os.environ.get("CANARY_CONFIG", DEFAULT_CONFIG_FILE))
    if not file.exists():
        if path is not None or "CANARY_CONFIG" in os.environ:
            raise ConfigError(f"{file}: no such configuration file (pass --config or set CANARY_CONFIG)")
        return parse_config({}, source="<defaults>")
    try:
        raw = yaml.safe_load(file.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", exc)
        raise ConfigError(f"{file}:{where} is not valid YAML ({problem}); fix the syntax") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{file}: is not UTF-8 text") from None
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{file}: the top level must be a mapping of keys (mode, models, ...)")
    return parse_config(raw, source=str(file))


def parse_config(raw: dict[str, Any], *, source: str = "<inline>") -> Config:
    """Validate a raw mapping (as read from YAML) against the declaration; absent keys take defaults."""
    f = read_as(raw, ConfigFile, source=source, error=ConfigError, dec_hook=path_hook)
    return Config(models=f.models, controls=f.controls, contracts=f.contracts,
                  optional_contracts=f.optional_contracts, languages=f.languages,
                  probe=f.probe, concurrency=f.concurrency, source=source, site=f.site,
                  paths=f.paths, digest=f.digest,
                  rules=Policy.from_rules(f.rules, languages=f.languages, mode=f.mode))


def path_hook(kind: type, value: Any) -> Any:
    """paths.*: a non-empty string, read as a Path (msgspec's dec_hook for canary.yaml's Path fields)."""
    if kind is Path:
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"expected a non-empty string, got {value!r}")
        return Path(value)
    raise NotImplementedError(kind)
