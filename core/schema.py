"""One way to read a file: its format declared once (frozen dataclasses or msgspec Structs), read with `read_as`.

A declaration's annotations carry every rule a value must meet (msgspec's constraints), its defaults
are the defaults, and `Meta(description=...)` documents the key; a rule spanning fields lives in
`__post_init__`, raising `Invalid("field", "why")`. `read_as` refuses an unknown key by its dotted
path, then converts strictly. msgspec is only asked yes or no: when it refuses, `problem` walks the
value beside the declaration's type tree and words the first thing wrong (file, dotted path, what was
expected, what was found), so a msgspec upgrade cannot change our messages; tests/core/test_schema.py
has one case per shape, each checking that msgspec refuses it too. `convert` is the same for a part
read on its own. Why msgspec and not pydantic (the import, paid by every process of a round):
benchmarks/README.md (schema_libraries.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, TypeVar

import msgspec
from msgspec import inspect as mi

from core.errors import InputError

T = TypeVar("T")
DecHook = Callable[[type, Any], Any]
Found = tuple[str, str] | None  # (dotted path, why): what a walk found wrong, or nothing
_INFOS: dict[type[Any], mi.Type] = {}

_NAMES: dict[type[mi.Type], str] = {
    mi.IntType: "a whole number", mi.FloatType: "a number", mi.BoolType: "true or false", mi.StrType: "a string",
    mi.ListType: "a list", mi.VarTupleType: "a list", mi.TupleType: "a list", mi.DictType: "a mapping",
    mi.DataclassType: "a mapping", mi.StructType: "a mapping", mi.NoneType: "null",
    mi.DateTimeType: "an ISO 8601 time like 2026-11-29T22:30:00Z"}
_TOP = "(top level)"
_SEQUENCE = (list, tuple)
_KINDS: dict[type[mi.Type], Callable[[Any], bool]] = {
    mi.IntType: lambda v: isinstance(v, int) and not isinstance(v, bool),
    mi.FloatType: lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    mi.BoolType: lambda v: isinstance(v, bool), mi.StrType: lambda v: isinstance(v, str),
    mi.NoneType: lambda v: v is None, mi.DateTimeType: lambda v: isinstance(v, (str, datetime)),
    mi.ListType: lambda v: isinstance(v, _SEQUENCE), mi.VarTupleType: lambda v: isinstance(v, _SEQUENCE),
    mi.TupleType: lambda v: isinstance(v, _SEQUENCE), mi.DictType: lambda v: isinstance(v, Mapping),
    mi.DataclassType: lambda v: isinstance(v, Mapping), mi.StructType: lambda v: isinstance(v, Mapping)}
_BOUNDS = (("gt", ">"), ("ge", ">="), ("lt", "<"), ("le", "<="))
_BROKEN = {"gt": lambda v, b: v <= b, "ge": lambda v, b: v < b, "lt": lambda v, b: v >= b, "le": lambda v, b: v > b}


class Invalid(InputError):
    """A declaration's own check failed (raised by `__post_init__`): `where` is the key (dotted, or
    "" for the whole entry) relative to the entry, `why` what is wrong with it. A ValueError (as
    every InputError), so msgspec carries it out of a conversion as its ValidationError's cause."""

    def __init__(self, where: str, why: str) -> None:
        super().__init__(f"{where}: {why}" if where else why)
        self.where, self.why = where, why


def read_as(raw: Any, kind: type[T], *, source: str | None, error: Callable[[str], Exception],
            dec_hook: DecHook | None = None, ignore_unknown_keys: bool = False, at: str = "") -> T:
    """`raw` (decoded YAML or JSON) as a `kind`, or `error("<source>: <path>: <why>")` (no source:
    `error("<path>: <why>")`). `ignore_unknown_keys` skips keys the declaration does not know, for a
    format that grows by additive keys older readers must skip; `at` is where `raw` sits in its file."""
    try:
        return convert(raw, kind, dec_hook=dec_hook, ignore_unknown_keys=ignore_unknown_keys, at=at)
    except Invalid as exc:
        prefix = "" if source is None else f"{source}: "
        raise error(f"{prefix}{exc.where or _TOP}: {exc.why}") from None


def convert(raw: Any, kind: type[T], *, dec_hook: DecHook | None = None, ignore_unknown_keys: bool = False,
            at: str = "") -> T:
    """`raw` as a `kind`, or `Invalid(<dotted path from at>, why)`: read_as without the file, for a
    part of a file read on its own (a fault's parameters inside a scenario's `faults:`)."""
    info = _info(kind)
    unknown = None if ignore_unknown_keys else unknown_key(raw, info, at)
    if unknown is not None:
        raise Invalid(*unknown)
    try:
        return msgspec.convert(raw, kind, strict=True, dec_hook=dec_hook)
    except msgspec.ValidationError as exc:
        # A shape the walk does not know (a test per shape keeps this unreached): msgspec's words.
        raise Invalid(*(problem(raw, info, at, dec_hook) or (at, str(exc)))) from None


def _info(kind: type[Any]) -> mi.Type:
    """The declaration's type tree, built once per kind (building it costs a millisecond)."""
    info = _INFOS.get(kind)
    if info is None:
        info = _INFOS[kind] = mi.type_info(kind)
    return info


def unknown_key(raw: Any, info: mi.Type, path: str = "") -> Found:
    """(dotted path, `unknown key (known here: ...)`) for the first key no declaration names."""
    info = _unwrap(info)
    if isinstance(info, mi.UnionType):
        member = next((m for m in info.types if not isinstance(m, mi.NoneType)), None)
        return None if member is None else unknown_key(raw, member, path)
    fields: dict[Any, mi.Type] = {}
    inner: list[tuple[Any, mi.Type | None, str]] = []
    if isinstance(info, (mi.DataclassType, mi.StructType)) and isinstance(raw, Mapping):
        fields = {f.encode_name: f.type for f in info.fields}
        inner = [(value, fields.get(key), _join(path, str(key))) for key, value in raw.items()]
    elif isinstance(info, (mi.ListType, mi.VarTupleType)) and isinstance(raw, list):
        inner = [(item, info.item_type, f"{path}[{i}]") for i, item in enumerate(raw)]
    elif isinstance(info, mi.DictType) and isinstance(raw, Mapping):
        inner = [(value, info.value_type, _join(path, str(key))) for key, value in raw.items()]
    for value, kind, where in inner:
        found = unknown_key(value, kind, where) if kind is not None else (
            where, f"unknown key (known here: {', '.join(sorted(fields))})")
        if found:
            return found
    return None


def problem(raw: Any, info: mi.Type, path: str = "", dec_hook: DecHook | None = None) -> Found:
    """(dotted path, why) for the first thing in `raw` its declaration refuses, or None."""
    declared = info
    while isinstance(info, mi.Metadata):
        info = info.type
    if isinstance(info, mi.UnionType):
        return _union(raw, info, path, dec_hook)
    if not _fits(raw, info):
        return path, f"expected {_name(declared)}, got {shown(raw)}"
    if isinstance(info, (mi.DataclassType, mi.StructType)):
        return _entry(raw, info, path, dec_hook)
    if isinstance(info, (mi.ListType, mi.VarTupleType)):
        return _at(path, _length(raw, info, "a list")) or _first(
            problem(item, info.item_type, f"{path}[{i}]", dec_hook) for i, item in enumerate(raw))
    if isinstance(info, mi.TupleType):
        if len(raw) != len(info.item_types):
            return path, f"expected a list of {len(info.item_types)} items, got {shown(raw)}"
        return _first(problem(item, kind, f"{path}[{i}]", dec_hook)
                      for i, (item, kind) in enumerate(zip(raw, info.item_types, strict=True)))
    if isinstance(info, mi.DictType):
        return _at(path, _length(raw, info, "a mapping")) or _first(
            problem(key, info.key_type, _join(path, str(key)), dec_hook)
            or problem(value, info.value_type, _join(path, str(key)), dec_hook) for key, value in raw.items())
    why = _leaf(raw, info, dec_hook)
    if why is not None and _title(declared):  # the title says what the rule asks for (`a safe round id`)
        why = f"expected {_title(declared)}, got {shown(raw)}"
    return None if why is None else (path, why)


def _union(raw: Any, info: mi.UnionType, path: str, dec_hook: DecHook | None) -> Found:
    """The member whose kind `raw` has words the problem (`0` for `int >= 1 | None` is a bound
    broken, not a type); a value of no member's kind is "expected X or Y"."""
    members = [m for m in info.types if _fits(raw, m)]
    if not members:
        return path, f"expected {_name(info)}, got {shown(raw)}"
    found = [problem(raw, m, path, dec_hook) for m in members]
    return None if None in found else found[0]


def _entry(raw: Mapping[str, Any], info: mi.DataclassType | mi.StructType, path: str,
           dec_hook: DecHook | None) -> Found:
    """A mapping read as a declaration: its fields, then the declaration's own `__post_init__`."""
    for f in info.fields:
        if f.encode_name not in raw:
            if f.required:
                return _join(path, f.encode_name), "required key is missing"
            continue
        found = problem(raw[f.encode_name], f.type, _join(path, f.encode_name), dec_hook)
        if found:
            return found
    try:  # every field reads: what is left is the entry's own check, raised in our words
        msgspec.convert(raw, info.cls, strict=True, dec_hook=dec_hook)
    except msgspec.ValidationError as exc:
        cause = exc.__cause__
        if isinstance(cause, Invalid):
            return _join(path, cause.where), cause.why
        return (path, str(cause)) if isinstance(cause, ValueError) else None
    return None


def _fits(raw: Any, info: mi.Type) -> bool:
    """Whether `raw` is of the kind `info` declares (strictly: a bool is no number)."""
    while isinstance(info, mi.Metadata):
        info = info.type
    if isinstance(info, mi.UnionType):
        return any(_fits(raw, m) for m in info.types)
    check = _KINDS.get(type(info))
    return True if check is None else check(raw)  # a literal, a custom type, Any: the leaf check says


def _leaf(raw: Any, info: mi.Type, dec_hook: DecHook | None) -> str | None:
    """What is wrong with a value of the right kind: a bound, a length, a choice, a format."""
    if isinstance(info, (mi.IntType, mi.FloatType)):
        for key, sign in _BOUNDS:
            bound = getattr(info, key)
            if bound is not None and _BROKEN[key](raw, bound):
                shown_bound = float(bound) if isinstance(info, mi.FloatType) else bound
                return f"expected {_name(info)} {sign} {shown_bound}, got {shown(raw)}"
        return None
    if isinstance(info, mi.StrType):
        if info.pattern is not None and re.search(info.pattern, raw) is None:  # as msgspec applies it
            return f"expected a string matching {info.pattern!r}, got {shown(raw)}"
        return _length(raw, info, "a string")
    if isinstance(info, (mi.LiteralType, mi.EnumType)):
        # By type too: True == 1 in Python, but no file's `true` is the literal 1 (msgspec agrees).
        known = any(raw == c and type(raw) is type(c) for c in _choices(info))
        return None if known else f"expected {_name(info)}, got {shown(raw)}"
    if isinstance(info, mi.DateTimeType):
        return None if _is_time(raw) else f"expected {_name(info)}, got {shown(raw)}"
    if isinstance(info, mi.CustomType) and dec_hook is not None and not isinstance(raw, info.cls):
        try:
            dec_hook(info.cls, raw)
        except ValueError as exc:
            return str(exc)
    return None


def _is_time(raw: Any) -> bool:
    """msgspec's yes or no for a time (its RFC 3339 parser is the format's definition)."""
    try:
        msgspec.convert(raw, datetime, strict=True)
    except msgspec.ValidationError:
        return False
    return True


def _length(raw: Any, info: Any, what: str) -> str | None:
    for key, sign in (("min_length", ">="), ("max_length", "<=")):
        bound = getattr(info, key)
        if bound is not None and _BROKEN["ge" if sign == ">=" else "le"](len(raw), bound):
            return f"expected {what} of length {sign} {bound}, got {shown(raw)}"
    return None


def _name(info: mi.Type) -> str:
    """`a whole number`, `a string or null`: what a declaration expects, in words (a type's
    `Meta(title=...)` names it better: `a list of endpoint tags`)."""
    title = _title(info)
    if title:
        return title
    while isinstance(info, mi.Metadata):
        info = info.type
    if isinstance(info, mi.UnionType):
        return " or ".join(_name(m) for m in info.types)
    if isinstance(info, (mi.LiteralType, mi.EnumType)):
        return f"one of {', '.join(map(str, _choices(info)))}"
    if isinstance(info, mi.CustomType):
        return f"a {info.cls.__name__}"
    return _NAMES.get(type(info), "a value")


def _title(info: mi.Type) -> str | None:
    """The declaration's `Meta(title=...)`, if it has one."""
    while isinstance(info, mi.Metadata):
        title = (info.extra_json_schema or {}).get("title")
        if title:
            return str(title)
        info = info.type
    return None


def _choices(info: mi.LiteralType | mi.EnumType) -> tuple[Any, ...]:
    """A literal's values, or an enum's members' values (a file holds the value), in declared order."""
    return info.values if isinstance(info, mi.LiteralType) else tuple(m.value for m in info.cls)


def shown(value: Any) -> str:
    """A value as an error message quotes it: repr, cut at 80 characters."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _at(path: str, why: str | None) -> Found:
    return None if why is None else (path, why)


def _first(found: Any) -> Found:
    return next((f for f in found if f), None)


def _unwrap(info: mi.Type) -> mi.Type:
    while isinstance(info, mi.Metadata):
        info = info.type
    if isinstance(info, mi.UnionType):
        members = [t for t in info.types if not isinstance(t, mi.NoneType)]
        if len(members) == 1:
            return _unwrap(members[0])
    return info


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path and key else path or key
