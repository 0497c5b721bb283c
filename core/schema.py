"""One way to read a file: its format declared once, as frozen dataclasses, read with `read_as`.

Each file format (canary.yaml, a simulator scenario, ...) is one tree of frozen dataclasses whose
annotations carry every rule a value must meet (`Annotated[int, Meta(ge=1)]`: msgspec's
constraints), whose defaults are the defaults, and whose `Meta(description=...)` documents the
key (the configuration table in the docs is generated from it: core/config_docs.py). A rule that
spans fields lives in the dataclass's `__post_init__`, raising `ValueError("field: why")`.

`read_as(raw, Kind, source=..., error=...)` refuses a key the declaration does not know, naming
its dotted path (`canary.yaml: rules.streak.rounds: unknown key (known here: ...)`), then converts
with msgspec, strictly (no `"10"` read as 10, no `true` as 1), and turns msgspec's error into the
project's shape: the file, the dotted path, what was expected and what was found
(`canary.yaml: probe.ttft_seconds: expected a number >= 0.1, got -1`).

Why msgspec and not pydantic v2 (benchmarks/schema_libraries.py prints the figures): both
decode into plain frozen dataclasses with the path of a bad value, but msgspec imports in a
fraction of the time (one small C extension, no dependencies; pydantic's dataclasses pull in
pydantic-core and build a validator per class at import), and every process of a round (the
command, the pytest controller, each xdist worker, the simulator) reads canary.yaml or a scenario
at start-up, so an import cost is paid several times per round. msgspec is also strict by
default, which is what a configuration file wants.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import msgspec
from msgspec import inspect as mi

T = TypeVar("T")
_INFOS: dict[type[Any], mi.Type] = {}

_AT = re.compile(r"^(?P<why>.*?)(?: - at `(?P<path>\$[^`]*)`)?$", re.S)
_STEP = re.compile(r"\.([^.\[]+)|\[(\d+|\.\.\.)\]")
_NAMES = {"int": "a whole number", "float": "a number", "bool": "true or false", "str": "a string",
          "array": "a list", "object": "a mapping", "null": "null",
          "datetime": "an ISO 8601 time like 2026-11-29T22:30:00Z"}
_EXPECTED = re.compile(r"^Expected `([^`]+)`(.*?)(?:, got `[^`]+`)?$", re.S)


def read_as(raw: Any, kind: type[T], *, source: str | None, error: Callable[[str], Exception],
            dec_hook: Callable[[type, Any], Any] | None = None, ignore_unknown_keys: bool = False, at: str = "") -> T:
    """`raw` (decoded YAML or JSON) as a `kind`, or `error("<source>: <path>: <why>")` (no source:
    `error("<path>: <why>")`). `ignore_unknown_keys` skips keys the declaration does not know, for a
    format that grows by additive keys older readers must skip; `at` is where `raw` sits in its file."""
    info = _info(kind)
    prefix = "" if source is None else f"{source}: "
    unknown = None if ignore_unknown_keys else unknown_key(raw, info, at)
    if unknown is not None:
        raise error(f"{prefix}{unknown}")
    try:
        return msgspec.convert(raw, kind, strict=True, dec_hook=dec_hook)
    except msgspec.ValidationError as exc:
        raise error(f"{prefix}{explain(str(exc), raw, info, at)}") from None


def _info(kind: type[Any]) -> mi.Type:
    """The declaration's type tree, built once per kind (building it costs a millisecond)."""
    info = _INFOS.get(kind)
    if info is None:
        info = _INFOS[kind] = mi.type_info(kind)
    return info


def unknown_key(raw: Any, info: mi.Type, path: str = "") -> str | None:
    """`<dotted path>: unknown key (known here: ...)` for the first key no declaration names."""
    info = _unwrap(info)
    if isinstance(info, (mi.DataclassType, mi.StructType)) and isinstance(raw, Mapping):
        fields = {f.encode_name: f.type for f in info.fields}
        for key, value in raw.items():
            where = _join(path, str(key))
            if key not in fields:
                return f"{where}: unknown key (known here: {', '.join(sorted(fields))})"
            found = unknown_key(value, fields[key], where)
            if found:
                return found
    elif isinstance(info, (mi.ListType, mi.VarTupleType)) and isinstance(raw, list):
        for i, item in enumerate(raw):
            found = unknown_key(item, info.item_type, f"{path}[{i}]")
            if found:
                return found
    elif isinstance(info, mi.DictType) and isinstance(raw, Mapping):
        for key, value in raw.items():
            found = unknown_key(value, info.value_type, _join(path, str(key)))
            if found:
                return found
    elif isinstance(info, mi.UnionType):
        for member in info.types:
            if not isinstance(member, mi.NoneType):
                return unknown_key(raw, member, path)
    return None


def explain(message: str, raw: Any, info: mi.Type, at: str = "") -> str:
    """msgspec's `Expected `int` >= 1 - at `$.rules.fade_days`` in the project's words."""
    match = _AT.match(message)
    why, steps = (match.group("why"), _steps(match.group("path") or "$")) if match else (message, [])
    path = at + "".join(f"[{s}]" if isinstance(s, int) or s == "..." else f".{s}" for s in steps)
    path = path.lstrip(".")
    expected = _EXPECTED.match(why)
    if expected:
        kinds = " or ".join(_NAMES.get(k, k) for k in expected.group(1).split(" | "))
        why = f"expected {kinds}{expected.group(2)}, got {shown(_value_at(raw, steps))}"
    elif why.startswith("Invalid enum value"):
        options = _type_at(info, steps)
        choices = ", ".join(map(str, options.values)) if isinstance(options, mi.LiteralType) else "?"
        why = f"expected one of {choices}, got {shown(_value_at(raw, steps))}"
    elif why.startswith("Invalid RFC3339"):
        why = f"expected {_NAMES['datetime']}, got {shown(_value_at(raw, steps))}"
    elif why.startswith("Object missing required field"):
        field = why.split("`")[1]
        path, why = _join(path, field), "required key is missing"
    else:
        head, sep, rest = why.partition(": ")  # a __post_init__'s "field: why"
        if sep and re.fullmatch(r"[A-Za-z_]\S*", head):
            path, why = _join(path, head), rest
    return f"{path or '(top level)'}: {why}"


def shown(value: Any) -> str:
    """A value as an error message quotes it: repr, cut at 80 characters."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _steps(path: str) -> list[str | int]:
    return [int(i) if i.isdigit() else i if i else key for key, i in _STEP.findall(path)]


def _value_at(raw: Any, steps: list[str | int]) -> Any:
    for step in steps:
        if isinstance(step, int) and isinstance(raw, list) and step < len(raw):
            raw = raw[step]
        elif isinstance(step, str) and isinstance(raw, Mapping) and step in raw:
            raw = raw[step]
        else:
            return raw
    return raw


def _type_at(info: mi.Type, steps: list[str | int]) -> mi.Type:
    for step in steps:
        info = _unwrap(info)
        if isinstance(info, (mi.DataclassType, mi.StructType)):
            info = next((f.type for f in info.fields if f.encode_name == step), info)
        elif isinstance(info, (mi.ListType, mi.VarTupleType)):
            info = info.item_type
        elif isinstance(info, mi.DictType):
            info = info.value_type
    return _unwrap(info)


def _unwrap(info: mi.Type) -> mi.Type:
    while isinstance(info, mi.Metadata):
        info = info.type
    if isinstance(info, mi.UnionType):
        members = [t for t in info.types if not isinstance(t, mi.NoneType)]
        if len(members) == 1:
            return _unwrap(members[0])
    return info


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key
