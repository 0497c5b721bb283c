"""The readers of the exclusion layers' files (core/layers.py LAYERS): the two YAML files people write
and, for the chat backend, the suspensions in the judge's state file. Standard library and PyYAML only:
the backend's library (provider_ignore) ships this module.

Exclusion files (builtin.yaml, incidents.yaml) map a model id to a list of entries:

    "deepseek/deepseek-chat-v3-0324":
      - provider: "aurora/fp8"
        reason: "stray punctuation at the start of replies"
        since: "2026-11-29"                 # builtin only, optional
        added_at: "2026-11-29T22:30:00Z"    # incidents: required
        expires: "2026-12-06T00:00:00Z"     # incidents: optional
        added_by: "alice"                   # incidents: optional

They are walked as YAML nodes (not plain dicts) so that every error carries its line; each entry's
keys are declared once (core/layers.py `BuiltinEntry`, `IncidentEntry`, the layer's `entry`).

The state file's suspensions are read here, not by the judge's codec (judge/suspension/state.py, which
needs msgspec): only `models.<model>.<provider>.suspension` (since, until, mode, reason) and the
schema_version; everything else in the file is the judge's and is left unread, so an additive field
never breaks the backend.
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, time
from pathlib import Path
from typing import Any, NoReturn

import yaml

from core.layers import (
    LAYERS,
    STATE_FIX,
    STATE_SCHEMA_VERSION,
    STATE_SUSPENSION_KEY,
    SUSPENSION,
    Exclusion,
    Layer,
    layer_named,
)
from core.store import StoreError, read_json, read_text
from core.tags import describe_invalid_tag, is_valid_tag
from core.times import TimeFormatError, parse_date, parse_time

_NULL_TAG = "tag:yaml.org,2002:null"


def read_layer(layer: Layer, path: Path) -> tuple[Exclusion, ...]:
    """The entries of `layer`'s file at `path`; () when it does not exist yet (StoreError on a bad file)."""
    if layer.name == SUSPENSION:
        return read_suspensions(path)
    return load_exclusions(path, layer.name)


def read_layers(paths: dict[str, Path]) -> tuple[Exclusion, ...]:
    """Every layer's entries, each from `paths[layer.name]` (a layer left out is not read)."""
    return tuple(e for layer in LAYERS if layer.name in paths for e in read_layer(layer, paths[layer.name]))


def load_exclusions(path: Path, layer: str) -> tuple[Exclusion, ...]:
    """Entries of builtin.yaml (layer "builtin") or incidents.yaml ("incident"); () when missing."""
    text = read_text(path, f"{layer} exclusion file")
    if text is None:
        return ()
    return parse_exclusions(text, layer, str(path))


def compose_yaml(text: str, source: str) -> yaml.Node | None:
    """A people's file's node tree (lines kept for errors); StoreError with the line when it is not YAML."""
    try:
        return yaml.compose(text, Loader=yaml.SafeLoader)
    except RecursionError:
        raise StoreError(f"{source}: not valid YAML (nested too deeply); fix the syntax or revert it with git. "
                         "Nothing was written.") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" line {mark.line + 1}:" if mark is not None else ""
        raise StoreError(f"{source}:{line} not valid YAML ({getattr(exc, 'problem', exc)}); fix the syntax "
                         "(see the format in the file's header) or revert it with git. Nothing was written.") from None


def parse_exclusions(text: str, layer: str, source: str) -> tuple[Exclusion, ...]:
    """Validate an exclusion file's text; StoreError names the line of the first problem."""
    root = compose_yaml(text, source)
    if root is None or (isinstance(root, yaml.ScalarNode) and root.tag == _NULL_TAG):
        return ()
    if not isinstance(root, yaml.MappingNode):
        _fail(source, root, "the top level must map model ids to lists of entries")
    entries: list[Exclusion] = []
    seen: set[str] = set()
    for key, value in root.value:
        model = key.value if isinstance(key, yaml.ScalarNode) else None
        if not is_valid_tag(model):
            _fail(source, key, f"model id {describe_invalid_tag(model)}")
        if model in seen:
            _fail(source, key, f"model {model} is listed twice; merge its entries under one key")
        seen.add(model)
        if isinstance(value, yaml.ScalarNode) and value.tag == _NULL_TAG:
            continue  # a model key with no entries yet
        if not isinstance(value, yaml.SequenceNode):
            _fail(source, value, f"{model}: expected a list of entries (- provider: ...)")
        spelled: dict[str, str] = {}
        for item in value.value:
            entry = _entry(source, layer, model, item)
            other = spelled.setdefault(entry.provider.casefold(), entry.provider)
            if other != entry.provider:  # one host to OpenRouter if it matches tags ignoring case
                _fail(source, item, f"{model}: provider {entry.provider} differs only by case from {other}; "
                                    "keep one spelling")
            entries.append(entry)
    return tuple(entries)


def _entry(source: str, layer: str, model: str, node: yaml.Node) -> Exclusion:
    if not isinstance(node, yaml.MappingNode):
        _fail(source, node, f"{model}: each entry must be a mapping with provider and reason")
    kind = layer_named(layer).entry
    declared = dataclasses.fields(kind)
    known = sorted(f.name for f in declared)
    fields: dict[str, str] = {}
    for key, value in node.value:
        name = str(key.value if isinstance(key, yaml.ScalarNode) else None)
        if name not in known:  # named with the key's own line
            _fail(source, key, f"{model}: {name}: unknown key (known here: {', '.join(known)})")
        if name in fields:  # YAML would silently keep the last one: which provider did the person mean?
            _fail(source, key, f"{model}: field {name} is given twice in one entry")
        if not isinstance(value, yaml.ScalarNode):
            _fail(source, value, f"{name}: expected a single value")
        fields[name] = value.value
    for f in declared:  # every value is a YAML scalar, so a string: only the required keys are left to check
        if f.name not in fields and f.default is dataclasses.MISSING:
            _fail(source, node, f"{model}: {f.name}: required key is missing")
    provider = fields["provider"]
    if not is_valid_tag(provider):
        _fail(source, node, f"provider {describe_invalid_tag(provider)}")
    times = {name: _time(source, node, name, text) for name in ("since", "added_at", "expires")
             if (text := fields.get(name))}
    return Exclusion(model=model, provider=provider, layer=layer, reason=fields["reason"],
                     since=times.get("since") or times.get("added_at"), expires=times.get("expires"),
                     added_by=fields.get("added_by"), line=node.start_mark.line + 1)


def _time(source: str, node: yaml.Node, name: str, value: str) -> datetime:
    try:
        return parse_time(value, name)
    except TimeFormatError:
        pass
    try:
        return datetime.combine(parse_date(value, name), time(), tzinfo=UTC)
    except TimeFormatError:
        _fail(source, node, f"{name}: {value!r} is not a date or ISO 8601 time like 2026-11-29T22:30:00Z")


def _fail(source: str, node: yaml.Node, problem: str) -> NoReturn:
    raise _problem(source, node, problem)


def _problem(source: str, node: yaml.Node, problem: str) -> StoreError:
    return StoreError(f"{source}: line {node.start_mark.line + 1}: {problem}. Fix the entry (the file's header "
                      "shows the format) or revert it with git. Nothing was written.")


def read_suspensions(path: Path) -> tuple[Exclusion, ...]:
    """The state file's suspensions as entries of the suspension layer; () when the file does not exist yet.

    Refuses (StoreError naming the key) what would change which hosts are excluded: another schema
    version, a suspension without its times or mode."""
    raw = read_json(path, "state file", STATE_FIX)
    if raw is None:
        return ()
    return suspensions_from_json(raw, str(path))


def suspensions_from_json(raw: Any, source: str) -> tuple[Exclusion, ...]:
    """The suspensions of a decoded state file (see read_suspensions)."""
    def bad(where: str, problem: str) -> NoReturn:
        raise StoreError(f"{source}: {where}: {problem}; {STATE_FIX}. Nothing was written.")

    if not isinstance(raw, dict):
        bad("top level", "expected an object")
    if raw.get("schema_version") != STATE_SCHEMA_VERSION:
        bad("schema_version", f"expected {STATE_SCHEMA_VERSION}, got {raw.get('schema_version')!r}")
    models = raw.get("models", {})
    if not isinstance(models, dict):
        bad("models", "expected an object of models")
    entries: list[Exclusion] = []
    for model, providers in sorted(models.items()):
        if not isinstance(providers, dict):
            bad(f"models.{model}", "expected an object of providers")
        for provider, kept in sorted(providers.items()):
            where = f"models.{model}.{provider}"
            if not isinstance(kept, dict):
                bad(where, "expected an object")
            suspension = kept.get(STATE_SUSPENSION_KEY)
            if suspension is None:
                continue
            if not isinstance(suspension, dict):
                bad(f"{where}.suspension", "expected an object or null")
            declared = dataclasses.fields(layer_named(SUSPENSION).entry)
            fields: dict[str, Any] = {f.name: suspension.get(f.name) for f in declared}
            for name, value in fields.items():
                if not isinstance(value, str):
                    bad(f"{where}.suspension.{name}", f"expected a string, got {value!r}")
            if fields["mode"] not in ("observe", "enforce"):
                bad(f"{where}.suspension.mode", f"expected observe or enforce, got {fields['mode']!r}")
            try:
                since, until = parse_time(fields["since"], "since"), parse_time(fields["until"], "until")
            except TimeFormatError as exc:
                bad(f"{where}.suspension", str(exc))
            entries.append(Exclusion(model=model, provider=provider, layer=SUSPENSION, reason=str(fields["reason"]),
                                     since=since, expires=until, observed=fields["mode"] != "enforce"))
    return tuple(entries)
