"""canary.yaml: the one configuration file, loaded into typed, validated settings.

Every key has a default (DEFAULTS below is the documented source of truth, listed in
docs/configuration.md; the `rules:` defaults are core.policy.Policy's, the only ones); a bad value raises
ConfigError naming the file and the dotted key, and saying what is expected, so a person can
fix it without reading code. `rules:` and `languages` are parsed straight into a Policy.
"""

from __future__ import annotations

import copy
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from core.errors import CanaryError
from core.policy import MODES, Policy
from core.tags import is_valid_model_id
from core.vocabulary import CONTRACTS, LANGUAGES, OPTIONAL_CONTRACTS

_RULES = Policy()  # the rules' defaults, read from the one place they are set

DEFAULT_CONFIG_FILE = "canary.yaml"

DEFAULTS: dict[str, Any] = {
    # observe: record "would suspend" only; enforce: suspensions reach provider.ignore.
    "mode": _RULES.mode,
    "models": [],
    # Hosts known to filter the refusal probe, per model: the positive control.
    "controls": {},
    "contracts": list(CONTRACTS),
    # model id -> the optional contracts (tools, stop, fidelity) it runs; none without an entry.
    "optional_contracts": {},
    "languages": list(LANGUAGES),
    "probe": {
        "ttft_seconds": 10.0,           # no text within this many seconds fails the latency contract
        "request_deadline_seconds": 30.0,  # overall deadline of one request, whatever the reads do
        "max_tokens": 200,              # cap on every probe request's completion
        "language_confirmations": 2,    # extra attempts after a language anomaly (majority of 3)
        "temperature": 0.7,
        # Reasoning endpoints only (those listing `reasoning`, `reasoning_effort` or
        # `include_reasoning`): OpenRouter's reasoning.effort (null: send reasoning_max_tokens as
        # reasoning.max_tokens instead), and the room for thinking added to every completion
        # budget so the answer still fits (benchmarks/cost.py measures what it costs).
        "reasoning_effort": "low",
        "reasoning_max_tokens": 1024,
        # When to send them: `auto` only where the model thinks anyway (the models API says
        # thinking is on by default or mandatory, or says nothing): sending an effort to a hybrid
        # model whose thinking is off turns it on, so the probe would time thinking the product
        # never waits for; `always` where the product itself sends reasoning controls.
        "reasoning_controls": "auto",
    },
    "concurrency": {
        # Simultaneous requests per round, all providers (per xdist worker: overall // workers).
        # 256 lets a 64-endpoint round (4 requests each) go out at once and a 256-endpoint round
        # finish in ~4 waves (benchmarks/round_scaling.py); 32 took 3x the longest request at 64
        # endpoints. The per-provider cap, not this one, is what protects each host.
        "overall": 256,
        "per_provider": 4,              # simultaneous requests to one provider: a clean round sends 4
    },
    # The judge's rules: core/policy.py Policy holds the defaults and says what each means.
    "rules": {
        "failed_rounds_to_suspend": _RULES.failed_rounds_to_suspend,
        "clean_rounds_to_restore": _RULES.clean_rounds_to_restore,
        "pending_failure_hours": _RULES.pending_failure_hours,
        "min_round_gap_minutes": _RULES.min_round_gap_minutes,
        "ladder_days": list(_RULES.ladder_days),
        "fade_days": _RULES.fade_days,
        "capacity_floor": _RULES.capacity_floor,
        "observe_contracts": list(_RULES.observe_contracts),
        "model_wide_guard": {
            "enabled": _RULES.guard_enabled,
            "min_fraction": _RULES.guard_min_fraction,
            "min_endpoints": _RULES.guard_min_endpoints,
        },
    },
    "paths": {
        "reports": "reports",
        "state": "state/canary-state.json",
        "audit": "state/audit.jsonl",
        "builtin": "exclusions/builtin.yaml",
        "incidents": "exclusions/incidents.yaml",
        # The branch the judge commits paths.state and paths.audit to (see paths.state_branch below).
        "state_branch": "canary-state",
        # Round history (canary/history). Left at this default it follows the state file: a
        # `history` folder next to paths.state (so it lands wherever the state lives).
        "history": "state/history",
    },
    "site": {
        # The status page (canary site) turns visibly stale when its newest round is older than
        # this, computed in the browser at view time, so a page nobody rebuilt still turns stale.
        # 90 min: three missed half-hourly rounds (GitHub delays scheduled runs by minutes, and
        # drops some).
        "stale_after_minutes": 90,
    },
}

# --- paths.state_branch ----------------------------------------------------------------------
# The judge's own files (state + audit log) are committed to a branch of their own, created on
# first use and never force-pushed, so a protected main (required pull requests or status
# checks, which the workflow's GITHUB_TOKEN can never bypass) does not block the round; people's
# files (exclusions/*.yaml, canary.yaml) stay on main under review. Empty or null: commit them
# to the checked-out branch instead (for a token that may push there, e.g. a GitHub App on the
# ruleset's bypass list).
PATH_FILE_KEYS: tuple[str, ...] = ("reports", "state", "audit", "builtin", "incidents", "history")
_BRANCH_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,99}")


def _state_branch(raw: Any, source: str) -> str | None:
    if raw is None or raw == "":
        return None
    if (not isinstance(raw, str) or not _BRANCH_NAME.fullmatch(raw) or ".." in raw or "//" in raw
            or raw.endswith(("/", ".", ".lock"))):
        raise ConfigError(f"{source}: paths.state_branch must be a branch name like canary-state (letters, digits, "
                          f"'.', '_', '-', '/'), or empty to keep the judge's files on the checked-out branch; got {raw!r}")
    return raw


class ConfigError(CanaryError, ValueError):
    """canary.yaml (or an override) holds a value canary cannot use."""


@dataclass(frozen=True, slots=True)
class ProbeSettings:
    ttft_seconds: float
    request_deadline_seconds: float
    max_tokens: int
    language_confirmations: int
    temperature: float
    reasoning_effort: str | None = "low"   # see DEFAULTS["probe"]
    reasoning_max_tokens: int = 1024
    reasoning_controls: str = "auto"       # auto | always (see DEFAULTS["probe"])


@dataclass(frozen=True, slots=True)
class ConcurrencySettings:
    overall: int
    per_provider: int


@dataclass(frozen=True, slots=True)
class PathSettings:
    reports: Path
    state: Path
    audit: Path
    builtin: Path
    incidents: Path
    history: Path
    state_branch: str | None = None   # see paths.state_branch above; None: the checked-out branch


@dataclass(frozen=True, slots=True)
class SiteSettings:
    stale_after_minutes: float = 90.0


@dataclass(frozen=True, slots=True)
class Config:
    models: tuple[str, ...]
    controls: dict[str, tuple[str, ...]]
    contracts: tuple[str, ...]
    languages: tuple[str, ...]
    probe: ProbeSettings
    concurrency: ConcurrencySettings
    rules: Policy  # canary.yaml's rules: and languages, as the judge uses them
    paths: PathSettings
    source: str = field(default="<defaults>")
    site: SiteSettings = field(default_factory=SiteSettings)
    optional_contracts: dict[str, tuple[str, ...]] = field(default_factory=dict)  # model -> opted-in optional contracts

    @property
    def mode(self) -> str:
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
        raise ConfigError(f"{file}:{where} is not valid YAML ({getattr(exc, 'problem', exc)}); fix the syntax") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{file}: is not UTF-8 text") from None
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{file}: the top level must be a mapping of keys (mode, models, ...)")
    return parse_config(raw, source=str(file))


def parse_config(raw: dict[str, Any], *, source: str = "<inline>") -> Config:
    """Validate a raw mapping (as read from YAML) on top of DEFAULTS."""
    merged = _merge(copy.deepcopy(DEFAULTS), raw, source, prefix="")
    v = _Validator(source)
    mode = v.choice(merged, "mode", MODES)
    models = tuple(v.str_list(merged, "models", nonempty=False))
    if len(set(models)) != len(models):
        raise ConfigError(f"{source}: models: lists a model twice")
    for m in models:
        if not is_valid_model_id(m):  # as discovery checks them: an id reaches URLs, files and Markdown
            raise ConfigError(f"{source}: models: {ascii(m)[:80]} is not an OpenRouter model id: author/slug, "
                              "segments of letters, digits and ._:- joined by /, at most 128 characters")
    controls_raw = merged["controls"]
    if not isinstance(controls_raw, dict):
        raise ConfigError(f"{source}: controls: must map a model id to a list of endpoint tags")
    controls: dict[str, tuple[str, ...]] = {}
    for model in controls_raw:
        controls[str(model)] = tuple(v.str_list(controls_raw, str(model), key_path=f"controls.{model}"))
    contracts = tuple(v.str_list(merged, "contracts"))
    for c in contracts:
        if c not in CONTRACTS:
            raise ConfigError(f"{source}: contracts: unknown contract {c!r}; choose from {', '.join(CONTRACTS)}")
    optional_contracts = _optional_contracts(merged["optional_contracts"], v, source)
    languages = tuple(v.str_list(merged, "languages"))
    for lang in languages:
        if lang not in LANGUAGES:
            raise ConfigError(
                f"{source}: languages: {lang!r} is not one of the 17 supported codes ({', '.join(LANGUAGES)})")
    p = merged["probe"]
    probe = ProbeSettings(
        ttft_seconds=v.number(p, "ttft_seconds", "probe.ttft_seconds", minimum=0.1),
        request_deadline_seconds=v.number(p, "request_deadline_seconds", "probe.request_deadline_seconds", minimum=0.1),
        max_tokens=v.integer(p, "max_tokens", "probe.max_tokens", minimum=16),
        language_confirmations=v.integer(p, "language_confirmations", "probe.language_confirmations", minimum=0),
        temperature=v.number(p, "temperature", "probe.temperature", minimum=0.0),
        reasoning_effort=_reasoning_effort(p.get("reasoning_effort"), source),
        reasoning_max_tokens=v.integer(p, "reasoning_max_tokens", "probe.reasoning_max_tokens", minimum=1),
        reasoning_controls=v.choice(p, "reasoning_controls", REASONING_CONTROLS),
    )
    if probe.request_deadline_seconds < probe.ttft_seconds:
        raise ConfigError(f"{source}: probe.request_deadline_seconds must be at least probe.ttft_seconds")
    c = merged["concurrency"]
    concurrency = ConcurrencySettings(
        overall=v.integer(c, "overall", "concurrency.overall", minimum=1),
        per_provider=v.integer(c, "per_provider", "concurrency.per_provider", minimum=1),
    )
    r = merged["rules"]
    g = r["model_wide_guard"]
    ladder = r["ladder_days"]
    if not isinstance(ladder, list) or not ladder or not all(
        isinstance(d, (int, float)) and not isinstance(d, bool) and d > 0 for d in ladder
    ):
        raise ConfigError(f"{source}: rules.ladder_days must be a non-empty list of positive numbers of days, like [1, 3, 7]")
    pending_failure_hours = v.number(r, "pending_failure_hours", "rules.pending_failure_hours", minimum=0.1)
    min_round_gap_minutes = v.number(r, "min_round_gap_minutes", "rules.min_round_gap_minutes", minimum=0.0)
    if min_round_gap_minutes >= pending_failure_hours * 60:
        raise ConfigError(
            f"{source}: rules.min_round_gap_minutes ({min_round_gap_minutes:g}) must be shorter than "
            f"rules.pending_failure_hours ({pending_failure_hours:g} h = {pending_failure_hours * 60:g} min): "
            "otherwise no round could ever extend a streak")
    rules = Policy(
        failed_rounds_to_suspend=v.integer(r, "failed_rounds_to_suspend", "rules.failed_rounds_to_suspend", minimum=1),
        clean_rounds_to_restore=v.integer(r, "clean_rounds_to_restore", "rules.clean_rounds_to_restore", minimum=1),
        pending_failure_hours=pending_failure_hours,
        min_round_gap_minutes=min_round_gap_minutes,
        ladder_days=tuple(ladder),
        fade_days=v.integer(r, "fade_days", "rules.fade_days", minimum=1),
        capacity_floor=v.integer(r, "capacity_floor", "rules.capacity_floor", minimum=0),
        guard_enabled=v.boolean(g, "enabled", "rules.model_wide_guard.enabled"),
        guard_min_fraction=v.number(g, "min_fraction", "rules.model_wide_guard.min_fraction", minimum=0.0, maximum=1.0),
        guard_min_endpoints=v.integer(g, "min_endpoints", "rules.model_wide_guard.min_endpoints", minimum=1),
        languages=languages,
        mode=mode,
        observe_contracts=_observe_contracts(r, v, source),
    )
    pa = merged["paths"]
    paths = PathSettings(**{k: Path(v.string(pa, k, f"paths.{k}")) for k in PATH_FILE_KEYS},
                         state_branch=_state_branch(pa["state_branch"], source))
    site = SiteSettings(stale_after_minutes=v.number(merged["site"], "stale_after_minutes", "site.stale_after_minutes",
                                                     minimum=1.0))
    return Config(models=models, controls=controls, contracts=contracts, languages=languages,
                  probe=probe, concurrency=concurrency, rules=rules, paths=paths, source=source, site=site,
                  optional_contracts=optional_contracts)


def _optional_contracts(raw: Any, v: _Validator, source: str) -> dict[str, tuple[str, ...]]:
    if not isinstance(raw, dict):
        raise ConfigError(f"{source}: optional_contracts: must map a model id to a list of optional contracts "
                          f"({', '.join(OPTIONAL_CONTRACTS)})")
    out: dict[str, tuple[str, ...]] = {}
    for model in raw:
        names = tuple(v.str_list(raw, model, key_path=f"optional_contracts.{model}", nonempty=False))
        for name in names:
            if name not in OPTIONAL_CONTRACTS:
                raise ConfigError(f"{source}: optional_contracts.{model}: unknown optional contract {name!r}; "
                                  f"choose from {', '.join(OPTIONAL_CONTRACTS)}")
        out[str(model)] = names
    return out


def _observe_contracts(rules: dict[str, Any], v: _Validator, source: str) -> tuple[str, ...]:
    names = tuple(v.str_list(rules, "observe_contracts", key_path="rules.observe_contracts", nonempty=False))
    for name in names:
        if name not in CONTRACTS:
            raise ConfigError(f"{source}: rules.observe_contracts: unknown contract {name!r}; "
                              f"choose from {', '.join(CONTRACTS)}")
    return names


REASONING_CONTROLS = ("auto", "always")
REASONING_EFFORTS = ("max", "xhigh", "high", "medium", "low", "minimal", "none")  # OpenRouter's reasoning.effort


def _reasoning_effort(value: Any, source: str) -> str | None:
    if value is None or value in REASONING_EFFORTS:
        return value  # type: ignore[no-any-return]
    raise ConfigError(f"{source}: probe.reasoning_effort must be one of {', '.join(REASONING_EFFORTS)} or null "
                      f"(null: send probe.reasoning_max_tokens as the thinking budget), got {value!r}")


def _merge(base: dict[str, Any], override: dict[str, Any], source: str, prefix: str) -> dict[str, Any]:
    """Overlay `override` on `base`, refusing keys the defaults do not know (typos)."""
    for key, value in override.items():
        dotted = f"{prefix}{key}"
        if key not in base:
            known = ", ".join(sorted(base))
            raise ConfigError(f"{source}: unknown key {dotted!r} (known here: {known})")
        if isinstance(base[key], dict) and key not in ("controls", "optional_contracts"):
            if not isinstance(value, dict):
                raise ConfigError(f"{source}: {dotted} must be a mapping, got {type(value).__name__}")
            base[key] = _merge(base[key], value, source, prefix=f"{dotted}.")
        else:
            base[key] = value
    return base


class _Validator:
    def __init__(self, source: str) -> None:
        self.source = source

    def _err(self, key: str, expected: str, value: Any) -> ConfigError:
        return ConfigError(f"{self.source}: {key} must be {expected}, got {value!r}")

    def choice(self, d: dict[str, Any], key: str, options: tuple[str, ...]) -> str:
        value = d[key]
        if value not in options:
            raise self._err(key, " or ".join(options), value)
        return str(value)

    def string(self, d: dict[str, Any], key: str, key_path: str) -> str:
        value = d[key]
        if not isinstance(value, str) or not value.strip():
            raise self._err(key_path, "a non-empty string", value)
        return value

    def str_list(self, d: dict[str, Any], key: str, key_path: str | None = None, nonempty: bool = True) -> list[str]:
        value = d[key]
        path = key_path or key
        if not isinstance(value, list) or not all(isinstance(x, str) and x.strip() for x in value):
            raise self._err(path, "a list of non-empty strings", value)
        if nonempty and not value:
            raise self._err(path, "a non-empty list", value)
        return list(value)

    def number(self, d: dict[str, Any], key: str, key_path: str, minimum: float | None = None,
               maximum: float | None = None) -> float:
        value = d[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self._err(key_path, "a number", value)
        if minimum is not None and value < minimum:
            raise self._err(key_path, f"a number >= {minimum}", value)
        if maximum is not None and value > maximum:
            raise self._err(key_path, f"a number <= {maximum}", value)
        return float(value)

    def integer(self, d: dict[str, Any], key: str, key_path: str, minimum: int | None = None) -> int:
        value = d[key]
        if isinstance(value, bool) or not isinstance(value, int):
            raise self._err(key_path, "a whole number", value)
        if minimum is not None and value < minimum:
            raise self._err(key_path, f"a whole number >= {minimum}", value)
        return value

    def boolean(self, d: dict[str, Any], key: str, key_path: str) -> bool:
        value = d[key]
        if not isinstance(value, bool):
            raise self._err(key_path, "true or false", value)
        return value
