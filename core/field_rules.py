"""The rules a value of the round is read by: what a measurement, a count, an amount of money and
free text from upstream may be, and `lenient_entry`, which reads a declared entry of a file field by
field by them, and `read_document`, which reads a file's top level by its declaration (pure).

The probes build the round record by these rules (probes/round/cases.py, probes/round/contracts/),
and core/results.py reads results.json's cases and attempts by them, so a case the probes hold is
the case its results.json entry reads back as. A field of a declared entry (a frozen msgspec Struct)
is read by its type when a type can say the rule (`Amount`, `Check`, `bool`), or by `ReadBy(rule)`
beside its type when it cannot (a measurement keeps an integer as an integer and refuses one too
large for a float; a reason reads as its text whatever it is): one odd value costs its field only.

A document's top level (`read_document`) is read the other way round: a field declared by its type
alone is what the file's reader must be able to trust, and a value it does not read refuses the
document in core/schema.py's words; `ReadBy` still marks a field read leniently, and `EachAlone`
marks a container of upstream entries (a round's cases) that the file's reader reads one by one.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Any, Literal, TypeVar, get_args, get_origin

import msgspec
from msgspec import Meta

from core.schema import read_as

# A probe reply costs micro-dollars, and no listing charges a dollar per token: an amount above
# this (1e308, a 400-digit integer) is a hostile or broken value, read as absent wherever an
# amount is read (results.json, probes/http/records.py, discovery), so no sum of them can overflow.
MAX_BILL_USD = 1000.0
# The largest context window listed is ~10 M tokens: a token count or a listed limit above a billion
# (a 401-digit `context_length`) is no real reply's or listing's (discovery refuses the entry, a usage
# with one is not a usage, results.json reads it as absent).
MAX_COUNT = 10**9

Check = Literal["pass", "fail"]  # a check's outcome as the file holds it: refusal, integrity, a fidelity item
# An amount of money in USD (a bill, a listed price or cost): a number from 0 to MAX_BILL_USD, an
# integer read as the integer (NaN, infinities and larger numbers are refused by the bounds).
Amount = Annotated[int, Meta(ge=0, le=int(MAX_BILL_USD))] | Annotated[float, Meta(ge=0, le=MAX_BILL_USD)]


@dataclass(frozen=True, slots=True)
class ReadBy:
    """The reading rule of a field whose rule its type cannot state (`Annotated[float | None,
    ReadBy(measurement)]`): any decoded value in, the field's value out, or None for its default.
    msgspec ignores the marker; `lenient_entry` applies it."""

    rule: Callable[[Any], Any]


@dataclass(frozen=True, slots=True)
class EachAlone:
    """Marks a container of upstream entries (`Annotated[tuple[CaseEntry, ...], EachAlone()]`, or a
    dict of them): `read_document` reads the container strictly, as a list (or a mapping) of
    objects, and leaves each entry its mapping, for the file's reader to read on its own, so one
    bad entry is set aside alone instead of refusing the file."""


E = TypeVar("E", bound=msgspec.Struct)


def lenient_entry(raw: Mapping[str, Any], kind: type[E], **given: Any) -> E:
    """One entry of the file as a `kind`, field by field: a field in `given` is that value; a field
    declared with ReadBy is its rule's value; any other is the value when it converts to the
    declared type (msgspec, strictly: no `"1"` read as 1, no `true` as 1), else the field's default.
    An absent key, or a rule's None, reads as the default; a key `kind` does not declare is skipped."""
    values = dict(given)
    typed = _typed_part(kind, frozenset(given))
    try:  # the typed fields in one conversion; an odd value among them sends each to its own
        values.update(msgspec.structs.asdict(msgspec.convert(raw, typed, strict=True)))
    except (msgspec.ValidationError, UnicodeEncodeError):  # msgspec refuses a lone surrogate so
        for name, key, declared, rule in _reading(kind):
            if rule is None and name not in values and key in raw:
                try:
                    values[name] = msgspec.convert(raw[key], declared, strict=True)
                except (msgspec.ValidationError, UnicodeEncodeError):
                    pass
    for name, key, _, rule in _reading(kind):
        if rule is not None and name not in values and key in raw:
            value = rule(raw[key])
            if value is not None:
                values[name] = value
    return kind(**values)


def read_document(raw: Any, kind: type[msgspec.Struct], *, source: str | None,
                  error: Callable[[str], Exception]) -> dict[str, Any]:
    """A document's top level as `kind` declares it, field name -> value: a field declared by its
    type alone is read strictly, and a value it does not read (or a missing required key) raises
    `error("<source>: <key>: <why>")`; a ReadBy field is its rule's value, or its default; an
    EachAlone field is its entries, each still the mapping the file holds. A key `kind` does not
    declare is skipped: the format grows by additive keys, which an older reader skips."""
    strict = read_as(raw, _document_view(kind), source=source, error=error, ignore_unknown_keys=True)
    values = msgspec.structs.asdict(strict)
    for name, key, _, rule in _reading(kind):
        if rule is not None:
            value = rule(raw[key]) if key in raw else None
            values[name] = value if value is not None else _default(_fields(kind)[name])
    return values


@cache
def _fields(kind: type[msgspec.Struct]) -> dict[str, msgspec.structs.FieldInfo]:
    """`kind`'s fields by name: msgspec evaluates the annotations again at every call."""
    return {f.name: f for f in msgspec.structs.fields(kind)}


def _default(f: msgspec.structs.FieldInfo) -> Any:
    return f.default_factory() if f.default_factory is not msgspec.NODEFAULT else f.default


@cache
def _document_view(kind: type[msgspec.Struct]) -> type[msgspec.Struct]:
    """The fields of `kind` that `read_document` reads strictly, as a Struct of their own: the ReadBy
    fields left out, an EachAlone container's entries declared as objects of any keys."""
    fields: list[tuple[str, Any] | tuple[str, Any, Any]] = []
    for f in msgspec.structs.fields(kind):
        marks = get_args(f.type)[1:] if get_origin(f.type) is Annotated else ()
        if any(isinstance(m, ReadBy) for m in marks):
            continue
        fields.append(_field(f, _as_objects(f.type) if any(isinstance(m, EachAlone) for m in marks) else f.type))
    return msgspec.defstruct(f"{kind.__name__}Read", fields, kw_only=True)


def _field(f: msgspec.structs.FieldInfo, declared: Any) -> tuple[str, Any] | tuple[str, Any, Any]:
    """A field of `defstruct` with f's name and default, declared as `declared`."""
    if f.default is not msgspec.NODEFAULT:
        return f.name, declared, f.default
    if f.default_factory is not msgspec.NODEFAULT:
        return f.name, declared, msgspec.field(default_factory=f.default_factory)
    return f.name, declared


def _as_objects(declared: Any) -> Any:
    """`tuple[CaseEntry, ...]` as `tuple[dict[str, Any], ...]`, `dict[str, ModelEntry]` as
    `dict[str, dict[str, Any]]`: the container as declared, each entry an object of any keys."""
    container = get_args(declared)[0]
    entry = dict[str, Any]
    if get_origin(container) is dict:
        return dict[str, entry]
    if get_origin(container) is tuple:
        return tuple[entry, ...]
    raise TypeError(f"EachAlone marks a tuple or a dict of entries, not {container!r}")


@cache
def _reading(kind: type[msgspec.Struct]) -> tuple[tuple[str, str, Any, Callable[[Any], Any] | None], ...]:
    """(field name, key, declared type, ReadBy rule or None) per field of `kind`."""
    out = []
    for f in msgspec.structs.fields(kind):
        marks = get_args(f.type)[1:] if get_origin(f.type) is Annotated else ()
        rule = next((m.rule for m in marks if isinstance(m, ReadBy)), None)
        out.append((f.name, f.encode_name, f.type, rule))
    return tuple(out)


@cache
def _typed_part(kind: type[msgspec.Struct], given: frozenset[str]) -> type[msgspec.Struct]:
    """The fields of `kind` read by their type alone (no rule, not given), as a Struct of their own,
    each with its default: most entries hold no odd value, and one conversion reads them all."""
    fields: list[tuple[str, Any] | tuple[str, Any, Any]] = []
    for f in msgspec.structs.fields(kind):
        if f.name in given or any(f.name == name and rule for name, _, _, rule in _reading(kind)):
            continue
        fields.append(_field(f, f.type))
    return msgspec.defstruct(f"{kind.__name__}Typed", fields, kw_only=True)


def is_one_of(value: Any, known: Mapping[str, Any]) -> bool:
    """`value` is one of `known`'s keys (an unhashable value, as a list, is none)."""
    return isinstance(value, str) and value in known


def writable_text(value: Any) -> str:
    """Free text from the round (reasons): a str that can be written as UTF-8.

    JSON may carry lone surrogates (`"\\ud800"`), which decode into a str that no UTF-8 file can
    hold: written as is, they would crash the state write after the audit was already appended.
    Each one becomes "?".
    """
    text = str(value)
    return text.encode("utf-8", "replace").decode("utf-8") if not text.isascii() else text


def optional_text(value: Any) -> str | None:
    """A short upstream string (finish_reason, served_by): writable text, or None when absent or empty."""
    return writable_text(value) if isinstance(value, str) and value else None


def measurement(value: Any) -> float | None:
    """A measurement: a finite, non-negative number, else absent (an integer too large for a float too)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    try:
        finite = math.isfinite(value)
    except OverflowError:  # an int past ~1e308: math.isfinite converts it to a float first
        return None
    return (float(value) if isinstance(value, float) else value) if finite and value >= 0 else None


def seconds(value: float | None) -> float | None:
    """A time as results.json keeps it: to 0.1 ms, and absent when it is no measurement."""
    return None if value is None else measurement(round(value, 4))


def tokens_per_second(value: float | None) -> float | None:
    """A decode speed as results.json keeps it: to 0.01 token/s, and absent when it is no measurement."""
    return None if value is None else measurement(round(value, 2))


def short_figure(value: float) -> str:
    """A hostile number shown short: a long integer by its number of digits."""
    text = str(value)
    return f"a {len(text)}-digit integer" if isinstance(value, int) and len(text) > 20 else text[:40]


def count(value: Any) -> int | None:
    """A count (requests, tokens, characters): a non-negative int, else None (the field's default)."""
    return as_count(value, default=None)


def text(value: Any) -> str | None:
    """Free text that is read only when it is a string (an excerpt): writable text, else None."""
    return writable_text(value) if isinstance(value, str) else None


def as_count(value: Any, *, default: int | None) -> int | None:
    """A count (tokens, characters): a non-negative int, else the default."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else default
