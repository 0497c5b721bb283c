"""A record declared once is its file's form: `written` writes it, `lenient_entry` and `read_document`
read it back, by the declaration alone (pure). And the rules a value of the round is read by: what a
measurement, a count, an amount of money and free text from upstream may be.

A record (a frozen dataclass or msgspec Struct: results.json's round, case and attempt, the judge's
state) declares each field once, and what its type cannot say about the file sits beside the type,
as `Annotated` metadata that msgspec ignores:

    ReadBy(rule)   how the field is read: any decoded value in, the value out (None: the default;
                   ValueError: a value `read_document` refuses, naming the key)
    WriteAs(fn)    how the file holds a field whose record type it cannot (a window as its string)
    EachAlone()    a container of upstream entries its file's reader reads one by one
    SPARSE         left out of the file at its default (an older reader reads the absent key so)
    REQUIRED       the file must hold it, though code that builds the record may leave it at its default
    UNWRITTEN      not part of the file: never written, never read (what the judge or the reader adds)
    INLINE         a record whose fields the file holds beside its holder's (decisions.json's request)

and on a property's return type, `Derived(after=..., when=...)`: a key the file holds for its
readers (after the field `after`, else last; only when the field `when` is set), which the record
derives again and no reader reads. So a new measurement is one line: its field, its type and, where
needed, its rule. A record is never patched after it is built: times read without a zone are made
UTC by the reader that builds the record (`read_document`), derived keys are properties.

An entry from upstream (a case, an attempt) is read leniently (`lenient_entry`): a field whose value
its declaration does not read (by its type, strictly: no `"1"` read as 1, no `true` as 1, or by its
rule) reads as its default, so one odd value costs its field only. A document's top level
(`read_document`) is read the other way round: a field declared by its type alone is what the
file's reader must be able to trust, and a value it does not read refuses the document in
core/schema.py's words.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import Enum
from functools import cache
from typing import Annotated, Any, TypeVar, get_args, get_origin, get_type_hints

import msgspec
from msgspec import NODEFAULT, UNSET, Meta

from core.schema import read_as
from core.times import as_utc, fmt_time

# A probe reply costs micro-dollars, and no listing charges a dollar per token: an amount above
# this (1e308, a 400-digit integer) is a hostile or broken value, read as absent wherever an
# amount is read (results.json, probes/http/records.py, discovery), so no sum of them can overflow.
MAX_BILL_USD = 1000.0
# The largest context window listed is ~10 M tokens: a token count or a listed limit above a billion
# (a 401-digit `context_length`) is no real reply's or listing's (discovery refuses the entry, a usage
# with one is not a usage, results.json reads it as absent).
MAX_COUNT = 10**9

# An amount of money in USD (a bill, a listed price or cost): a number from 0 to MAX_BILL_USD, an
# integer read as the integer (NaN, infinities and larger numbers are refused by the bounds).
Amount = Annotated[int, Meta(ge=0, le=int(MAX_BILL_USD))] | Annotated[float, Meta(ge=0, le=MAX_BILL_USD)]


@dataclass(frozen=True, slots=True)
class ReadBy:
    """How a field is read when its type cannot say it (`Annotated[float | None, ReadBy(measurement)]`)."""

    rule: Callable[[Any], Any]


@dataclass(frozen=True, slots=True)
class WriteAs:
    """How the file holds a field whose record type it cannot (`Annotated[Window, WriteAs(encode)]`)."""

    form: Callable[[Any], Any]


@dataclass(frozen=True, slots=True)
class EachAlone:
    """Marks a container of upstream entries (`Annotated[tuple[CaseResult, ...], EachAlone()]`, or a
    mapping of them): `read_document` reads the container strictly, as a list (or a mapping) of
    objects, and leaves each entry its mapping, for the file's reader to read on its own, so one
    bad entry is set aside alone instead of refusing the file."""


@dataclass(frozen=True, slots=True)
class Derived:
    """On a property's return type (`-> Annotated[bool, Derived()]`): a key its record's file holds."""

    after: str | None = None  # the field it is written after (None: after every field)
    when: str | None = None   # written only when this field is set (not empty, not None)


class Key(Enum):
    """Where a field stands in its file, beyond its type (the module docstring says each)."""

    SPARSE = "sparse"
    REQUIRED = "required"
    UNWRITTEN = "unwritten"
    INLINE = "inline"


SPARSE, REQUIRED, UNWRITTEN, INLINE = Key.SPARSE, Key.REQUIRED, Key.UNWRITTEN, Key.INLINE


@dataclass(frozen=True, slots=True)
class FileField:
    """One field of a declaration, as its file holds it."""

    name: str
    type: Any                                # the annotation, its metadata kept (msgspec reads its Meta)
    default: Any                             # NODEFAULT: none
    factory: Any                             # NODEFAULT: none
    read: Callable[[Any], Any] | None = None
    write: Callable[[Any], Any] | None = None
    each_alone: bool = False
    keys: frozenset[Key] = frozenset()

    def blank(self) -> Any:
        """The field's default (a fresh one when it has a factory)."""
        return self.factory() if self.factory is not NODEFAULT else self.default


@cache
def declared(kind: type) -> tuple[FileField, ...]:
    """The fields of a frozen dataclass or msgspec Struct, in order, with what sits beside each type
    (a Struct declared `omit_defaults` has every field SPARSE)."""
    if dataclasses.is_dataclass(kind):
        hints = get_type_hints(kind, include_extras=True)
        fields = [(f.name, hints[f.name], f.default, f.default_factory) for f in dataclasses.fields(kind)]
        sparse = False
    elif issubclass(kind, msgspec.Struct):
        fields = [(f.name, f.type, f.default, f.default_factory) for f in msgspec.structs.fields(kind)]
        sparse = kind.__struct_config__.omit_defaults
    else:
        raise TypeError(f"{kind.__name__} is no declaration (a frozen dataclass or msgspec Struct)")
    out = []
    for name, kind_of, default, factory in fields:
        marks = get_args(kind_of)[1:] if get_origin(kind_of) is Annotated else ()
        keys = frozenset(m for m in marks if isinstance(m, Key)) | ({SPARSE} if sparse else set())
        out.append(FileField(
            name, kind_of, NODEFAULT if default is dataclasses.MISSING else default,
            NODEFAULT if factory is dataclasses.MISSING else factory,
            read=next((m.rule for m in marks if isinstance(m, ReadBy)), None),
            write=next((m.form for m in marks if isinstance(m, WriteAs)), None),
            each_alone=any(isinstance(m, EachAlone) for m in marks), keys=keys))
    return tuple(out)


@cache
def derived(kind: type) -> tuple[tuple[str, Derived], ...]:
    """The record's derived keys (name, where): its properties whose return type says Derived."""
    out = []
    for name, member in vars(kind).items():
        if isinstance(member, property) and member.fget is not None:
            returned = get_type_hints(member.fget, include_extras=True).get("return")
            marks = get_args(returned)[1:] if get_origin(returned) is Annotated else ()
            where = next((m for m in marks if isinstance(m, Derived)), None)
            if where is not None:
                out.append((name, where))
    return tuple(out)


def written(value: Any) -> Any:
    """`value` as its file holds it, in JSON's types: a declared record as its fields in order (a
    SPARSE one left out at its default, an UNWRITTEN one never, a WriteAs one in its form), an enum
    as its value, a time as core/times.py writes one, a tuple as a list (as json.loads gives it)."""
    if type(value) in _PLAIN:
        return value
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, datetime):
        return fmt_time(value)
    if isinstance(value, (list, tuple)):
        return [written(v) for v in value]
    if isinstance(value, Mapping):
        return {k: written(v) for k, v in value.items()}
    out = {}
    kind: type = type(value)  # (a class is hashable: mypy needs telling, for functools.cache)
    for name, sparse, blank, form, inline, when in _writing(kind):
        field_value = getattr(value, name)
        if field_value is UNSET or sparse and field_value == blank or when is not None and not getattr(value, when):
            continue
        if inline:
            out.update(written(field_value))
        else:
            out[name] = written(field_value if form is None or field_value is None else form(field_value))
    return out


_PLAIN = frozenset({str, int, float, bool, type(None)})


@cache
def _writing(kind: type) -> tuple[tuple[str, bool, Any, Callable[[Any], Any] | None, bool, str | None], ...]:
    """(name, sparse, the value it is left out at, WriteAs form, inline, the field it needs) per key the
    file holds, in order."""
    keys: list[tuple[str, bool, Any, Callable[[Any], Any] | None, bool, str | None]] = [
        (f.name, SPARSE in f.keys, f.blank() if SPARSE in f.keys else None, f.write, INLINE in f.keys, None)
        for f in declared(kind) if UNWRITTEN not in f.keys]
    for name, where in derived(kind):
        at = next((i + 1 for i, key in enumerate(keys) if key[0] == where.after), len(keys))
        keys.insert(at, (name, False, None, None, False, where.when))
    return tuple(keys)


E = TypeVar("E")


def lenient_entry(raw: Mapping[str, Any], kind: type[E], **given: Any) -> E:
    """One entry of the file as a `kind`, field by field: a field in `given` is that value; a field
    declared with ReadBy is its rule's value; any other is the value when it converts to the
    declared type (msgspec, strictly), else the field's default. An absent key, a rule's None or
    ValueError read as the default; a key `kind` does not declare (or declares UNWRITTEN) is skipped."""
    values = dict(given)
    declaration: type = kind  # (a class is hashable: mypy needs telling, for functools.cache)
    typed = _typed_part(declaration, frozenset(given))
    try:  # the typed fields in one conversion; an odd value among them sends each to its own
        values.update(msgspec.structs.asdict(msgspec.convert(raw, typed, strict=True)))
    except (msgspec.ValidationError, UnicodeEncodeError):  # msgspec refuses a lone surrogate so
        for f in declared(declaration):
            if f.read is None and UNWRITTEN not in f.keys and f.name not in values and f.name in raw:
                try:
                    values[f.name] = msgspec.convert(raw[f.name], f.type, strict=True)
                except (msgspec.ValidationError, UnicodeEncodeError):
                    pass
    for f in _ruled(declaration):
        if f.name not in values and f.name in raw:
            try:
                value = f.read(raw[f.name])  # type: ignore[misc]
            except ValueError:
                continue
            if value is not None:
                values[f.name] = value
    return kind(**values)


def read_document(raw: Any, kind: type, *, source: str | None, error: Callable[[str], Exception],
                  at: str = "") -> dict[str, Any]:
    """A document's top level (or an entry `at` a dotted key) as `kind` declares it, field name ->
    value: a field declared by its type alone is read strictly, and a value it does not read (or a
    missing required key) raises `error("<source>: <key>: <why>")`; a ReadBy field is its rule's
    value, or its default (a rule's ValueError refuses it too); an EachAlone field is its entries,
    each still the mapping the file holds. A key `kind` does not declare is skipped: a format grows
    by additive keys, which an older reader skips. UNWRITTEN fields are left to the caller."""
    strict = read_as(raw, _document_view(kind), source=source, error=error, ignore_unknown_keys=True, at=at)
    values = {name: in_utc(value) for name, value in msgspec.structs.asdict(strict).items()}
    for f in declared(kind):
        if INLINE in f.keys:
            inner = _record_type(f)
            values[f.name] = inner(**{g.name: values.pop(g.name) for g in declared(inner)})
    for f in _ruled(kind):
        try:
            value = f.read(raw[f.name]) if f.name in raw else None  # type: ignore[misc]
        except ValueError as exc:
            key = f"{at}.{f.name}" if at else f.name
            raise error(f"{'' if source is None else f'{source}: '}{key}: {exc}") from None
        values[f.name] = value if value is not None else f.blank()
    return values


def in_utc(value: Any) -> Any:
    """`value` with each time in it (in a record or a tuple of them) aware and UTC, as core/times.py
    reads one (a time written without a zone is UTC); a record rebuilt only where a time was not."""
    if isinstance(value, datetime):
        return value if value.tzinfo is UTC else as_utc(value)
    if isinstance(value, tuple):
        again = tuple(in_utc(v) for v in value)
        return value if all(a is b for a, b in zip(again, value, strict=True)) else again
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changed = {f.name: v for f in dataclasses.fields(value) if f.init
                   and (v := in_utc(getattr(value, f.name))) is not getattr(value, f.name)}
        return dataclasses.replace(value, **changed) if changed else value
    return value


@cache
def _ruled(kind: type) -> tuple[FileField, ...]:
    return tuple(f for f in declared(kind) if f.read is not None and UNWRITTEN not in f.keys)


def _field(f: FileField, declared_as: Any, required: bool = False) -> tuple[str, Any] | tuple[str, Any, Any]:
    """A field of `defstruct` with f's name and default (none when `required`), declared as `declared_as`."""
    if required or (f.default is NODEFAULT and f.factory is NODEFAULT):
        return f.name, declared_as
    if f.default is not NODEFAULT:
        return f.name, declared_as, f.default
    return f.name, declared_as, msgspec.field(default_factory=f.factory)


@cache
def _document_view(kind: type) -> type[msgspec.Struct]:
    """The fields of `kind` that `read_document` reads strictly, as a Struct of their own: the ReadBy
    and UNWRITTEN fields left out, an EachAlone container's entries declared as objects of any keys."""
    fields = [_field(f, _as_objects(f.type) if f.each_alone else f.type, REQUIRED in f.keys)
              for f in declared(kind) if f.read is None and not {UNWRITTEN, INLINE} & f.keys]
    fields += [_field(g, g.type) for f in declared(kind) if INLINE in f.keys for g in declared(_record_type(f))]
    return msgspec.defstruct(f"{kind.__name__}Read", fields, kw_only=True)


def _record_type(f: FileField) -> type:
    """The record an INLINE field holds (`Annotated[RequestRecord, INLINE]`: RequestRecord)."""
    record: type = get_args(f.type)[0]
    return record


def _as_objects(declared_as: Any) -> Any:
    """`tuple[CaseResult, ...]` as `tuple[dict[str, Any], ...]`, `Mapping[str, ModelEntry]` as
    `dict[str, dict[str, Any]]`: the container as declared, each entry an object of any keys."""
    container = get_origin(get_args(declared_as)[0])
    if container in (dict, Mapping):
        return dict[str, dict[str, Any]]
    if container is tuple:
        return tuple[dict[str, Any], ...]
    raise TypeError(f"EachAlone marks a tuple or a mapping of entries, not {declared_as!r}")


@cache
def _typed_part(kind: type, given: frozenset[str]) -> type[msgspec.Struct]:
    """The fields of `kind` read by their type alone (no rule, not given, not UNWRITTEN), as a Struct
    of their own, each with its default: most entries hold no odd value, and one conversion reads them all."""
    fields = [_field(f, f.type) for f in declared(kind)
              if f.name not in given and f.read is None and UNWRITTEN not in f.keys]
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


def cost(value: Any) -> float | None:
    """A case's cost: an amount of money (a measurement up to MAX_BILL_USD), else None; 0 reads as
    None too, so that the field's default (0.0, a float) stands for it."""
    amount = measurement(value)
    return amount if amount and amount <= MAX_BILL_USD else None


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
