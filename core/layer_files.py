"""The readers of the exclusion layers' files (core/layers.py LAYERS) and the one walk of every people's
file; for the chat backend, the suspensions in the judge's state file. Standard library and PyYAML only:
the backend's library (provider_ignore) ships this module.

`walk` reads the four people's files, each entry declared once as a frozen dataclass of strings, as
YAML nodes so that every error names its line; what it refuses: docs/file-formats.md (exclusion
files). An entry that declares no `model` is filed under its model's key (the exclusion files); one
that does is an item of a top-level list (silences, maintenance). The state file's suspensions are
read here without msgspec: only `models.<model>.<provider>.suspension` and the schema_version, so an
additive field never breaks the backend.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, time
from pathlib import Path
from typing import Any, ClassVar, Generic, NoReturn, Protocol, TypeVar

import yaml

from core.layers import (
    LAYERS,
    STATE_FIX,
    STATE_SCHEMA_VERSION,
    STATE_SUSPENSION_KEY,
    SUSPENSION,
    Exclusion,
    Layer,
    SuspensionEntry,
    layer_named,
)
from core.store import StoreError, read_json, read_text
from core.tags import describe_invalid_tag, is_valid_tag
from core.times import TimeFormatError, parse_date, parse_time

_NULL_TAG = "tag:yaml.org,2002:null"
FIX = "Fix the entry (the file's header shows the format) or revert it with git. Nothing was written."


class Declared(Protocol):
    """A declared entry: a dataclass (of strings, each a key of the file)."""

    __dataclass_fields__: ClassVar[dict[str, Any]]


E = TypeVar("E", bound=Declared)


@dataclass(frozen=True, slots=True)
class Walked(Generic[E]):
    """One entry of a people's file: its declared form, its model (the key, or its own `model`) and line."""

    model: str | None
    entry: E
    line: int


def read_layer(layer: Layer, path: Path) -> tuple[Exclusion, ...]:
    """The entries of `layer`'s file at `path`; () when it does not exist yet (StoreError on a bad file)."""
    if layer.name == SUSPENSION:
        return read_suspensions(path)
    text = read_text(path, f"{layer.name} exclusion file")
    return () if text is None else parse_exclusions(text, layer.name, str(path))


def read_layers(paths: dict[str, Path]) -> tuple[Exclusion, ...]:
    """Every layer's entries, each from `paths[layer.name]` (a layer left out is not read)."""
    return tuple(e for layer in LAYERS if layer.name in paths for e in read_layer(layer, paths[layer.name]))


def walk(text: str, source: str, kind: type[E]) -> list[Walked[E]]:
    """The entries of a people's file whose entry is declared by `kind`, in the file's order (see above)."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except RecursionError:
        raise StoreError(f"{source}: not valid YAML (nested too deeply); fix the syntax or revert it with git. "
                         "Nothing was written.") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" line {mark.line + 1}:" if mark is not None else ""
        raise StoreError(f"{source}:{line} not valid YAML ({getattr(exc, 'problem', exc)}); fix the syntax "
                         "(see the format in the file's header) or revert it with git. Nothing was written.") from None
    if root is None or (isinstance(root, yaml.ScalarNode) and root.tag == _NULL_TAG):
        return []
    first = dataclasses.fields(kind)[0].name
    if any(f.name == "model" for f in dataclasses.fields(kind)):
        if not isinstance(root, yaml.SequenceNode):
            _fail(source, root, f"the top level must be a list of entries (- {first}: ...)")
        return [_walked(source, kind, None, item) for item in root.value]
    if not isinstance(root, yaml.MappingNode):
        _fail(source, root, "the top level must map model ids to lists of entries")
    out: list[Walked[E]] = []
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
            _fail(source, value, f"{model}: expected a list of entries (- {first}: ...)")
        out += [_walked(source, kind, model, item) for item in value.value]
    return out


def _walked(source: str, kind: type[E], model: str | None, node: yaml.Node) -> Walked[E]:
    declared = dataclasses.fields(kind)
    known = sorted(f.name for f in declared)
    required = [f.name for f in declared if f.default is dataclasses.MISSING]
    at = f"{model}: " if model is not None else ""
    if not isinstance(node, yaml.MappingNode):
        _fail(source, node, f"{at}each entry must be a mapping ({', '.join(required)})")
    fields: dict[str, str] = {}
    given: set[str] = set()
    for key, value in node.value:
        name = str(key.value if isinstance(key, yaml.ScalarNode) else None)
        if name not in known:  # named with the key's own line
            _fail(source, key, f"{at}{name}: unknown key (known here: {', '.join(known)})")
        if name in given:  # YAML would silently keep the last one: which provider did the person mean?
            _fail(source, key, f"{at}field {name} is given twice in one entry")
        given.add(name)
        if not isinstance(value, yaml.ScalarNode):
            _fail(source, value, f"{at}{name}: expected a single value")
        if value.tag != _NULL_TAG:
            fields[name] = value.value
        elif name in ("model", "provider"):  # left out it means every one: empty, it must not
            _fail(source, value, f"{at}{name}: no value; name one, or leave the key out")
    for name in required:
        if not fields.get(name, "").strip():
            _fail(source, node, f"{at}{name}: required key is {'blank' if name in fields else 'missing'}")
    entry = kind(**fields)
    model = model if model is not None else getattr(entry, "model", None)
    for name, tag in (("model id", model), ("provider", getattr(entry, "provider", None))):
        if tag is not None and not is_valid_tag(tag):
            _fail(source, node, f"{name} {describe_invalid_tag(tag)}")
    return Walked(model, entry, node.start_mark.line + 1)


def parse_exclusions(text: str, layer: str, source: str) -> tuple[Exclusion, ...]:
    """Validate an exclusion file's text; StoreError names the line of the first problem."""
    entries: list[Exclusion] = []
    spelled: dict[tuple[str | None, str], str] = {}
    for w in walk(text, source, layer_named(layer).entry):
        e = w.entry
        assert not isinstance(e, SuspensionEntry), layer  # a layer people write
        provider = e.provider
        other = spelled.setdefault((w.model, provider.casefold()), provider)
        if other != provider:  # one host to OpenRouter if it matches tags ignoring case
            raise entry_error(source, w.line, f"{w.model}: provider {provider} differs only by case from {other}; "
                                              "keep one spelling")
        try:
            times = {name: entry_time(name, value) for name in ("since", "added_at", "expires")
                     if (value := getattr(e, name, None))}
        except StoreError as exc:
            raise entry_error(source, w.line, str(exc)) from None
        entries.append(Exclusion(model=str(w.model), provider=provider, layer=layer, reason=e.reason,
                                 since=times.get("since") or times.get("added_at"), expires=times.get("expires"),
                                 added_by=getattr(e, "added_by", None), line=w.line))
    return tuple(entries)


def entry_time(name: str, value: str) -> datetime:
    """A time of a people's file: ISO 8601, or a date (its midnight, UTC); StoreError saying which key is wrong."""
    try:
        return parse_time(value, name)
    except TimeFormatError:
        pass
    try:
        return datetime.combine(parse_date(value, name), time(), tzinfo=UTC)
    except TimeFormatError:
        raise StoreError(f"{name}: {value!r} is not an ISO 8601 time like 2026-11-29T22:30:00Z (or a date)") from None


def entry_error(source: str, line: int, problem: str) -> StoreError:
    """The error of an entry of a people's file: the file, the line, what is wrong and what to do."""
    return StoreError(f"{source}: line {line}: {problem}. {FIX}")


def _fail(source: str, node: yaml.Node, problem: str) -> NoReturn:
    raise entry_error(source, node.start_mark.line + 1, problem)


def read_suspensions(path: Path) -> tuple[Exclusion, ...]:
    """The state file's suspensions as the suspension layer's entries; () when the file does not exist yet.
    StoreError (naming the key) on another schema version or a suspension without its times or mode."""
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
            entries.append(_suspension(model, provider, suspension, where, bad))
    return tuple(entries)


def _suspension(model: str, provider: str, suspension: dict[str, Any], where: str,
                bad: Callable[[str, str], NoReturn]) -> Exclusion:
    """One suspension of the state file as an exclusion (`bad` raises the file's StoreError)."""
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
    return Exclusion(model=model, provider=provider, layer=SUSPENSION, reason=str(fields["reason"]),
                     since=since, expires=until, observed=fields["mode"] != "enforce")
