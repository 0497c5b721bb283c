"""core/schema.py's messages: one case per shape of refusal, each worded by the walk, never by msgspec.

Each case also checks that msgspec refuses the value: the walk words what msgspec refuses, so if a
msgspec upgrade starts accepting (or refusing) a shape differently, the case fails here first.
The cases were checked against msgspec CHECKED_WITH; an upgrade fails `test_the_pinned_msgspec`
loudly until someone re-runs these cases and moves the pin.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec
import pytest
from msgspec import Meta

from core.config import path_hook
from core.schema import Invalid, read_as

CHECKED_WITH = "0.22.0"


class Refused(Exception):
    pass


@dataclass(frozen=True, slots=True)
class Inner:
    count: Annotated[int, Meta(ge=1)] = 1
    share: Annotated[float, Meta(gt=0, le=1)] = 0.5

    def __post_init__(self) -> None:
        if self.count == 13:
            raise Invalid("count", "13 is unlucky")


class Colour(StrEnum):
    RED = "red"
    BLUE = "blue"


@dataclass(frozen=True, slots=True)
class Outer:
    name: str
    mode: Literal["observe", "enforce"] = "observe"
    inner: Inner = field(default_factory=Inner)
    items: tuple[Inner, ...] = ()
    tags: Annotated[tuple[str, ...], Meta(min_length=1)] = ("a",)
    by_model: dict[str, Annotated[int, Meta(ge=0)]] = field(default_factory=dict)
    label: str | None = None
    limit: Annotated[int, Meta(ge=1)] | None = None
    since: datetime | None = None
    slug: Annotated[str, Meta(pattern="^[a-z]+$")] = "a"
    folder: Path = Path("x")
    flag: bool = False
    anything: Any = None
    pair: tuple[str, int] = ("a", 1)
    colour: Colour = Colour.RED
    version: Literal[1, 2] = 1
    ident: Annotated[str, Meta(pattern=r"^[a-z]+\Z", title="a lower-case id")] = "a"

    def __post_init__(self) -> None:
        if self.name == "":
            raise Invalid("name", "must not be empty")
        if self.name == "whole":
            raise Invalid("", "a whole-entry rule broken")


CASES = [
    ({"name": "x", "inner": {"cuont": 2}}, "f.yaml: inner.cuont: unknown key (known here: count, share)"),
    ({"name": 3}, "f.yaml: name: expected a string, got 3"),
    ({"name": "x", "inner": {"count": "2"}}, "f.yaml: inner.count: expected a whole number, got '2'"),
    ({"name": "x", "inner": {"count": True}}, "f.yaml: inner.count: expected a whole number, got True"),
    ({"name": "x", "flag": 1}, "f.yaml: flag: expected true or false, got 1"),
    ({"name": "x", "inner": {"count": 0}}, "f.yaml: inner.count: expected a whole number >= 1, got 0"),
    ({"name": "x", "inner": {"share": 0}}, "f.yaml: inner.share: expected a number > 0.0, got 0"),
    ({"name": "x", "inner": {"share": 2}}, "f.yaml: inner.share: expected a number <= 1.0, got 2"),
    ({"name": "x", "mode": "enforced"}, "f.yaml: mode: expected one of enforce, observe, got 'enforced'"),
    ({"name": "x", "colour": "green"}, "f.yaml: colour: expected one of red, blue, got 'green'"),
    ({"name": "x", "colour": 1}, "f.yaml: colour: expected one of red, blue, got 1"),
    ({"name": "x", "version": True}, "f.yaml: version: expected one of 1, 2, got True"),
    ({"name": "x", "version": 3}, "f.yaml: version: expected one of 1, 2, got 3"),
    ({"name": "x", "ident": "a b"}, "f.yaml: ident: expected a lower-case id, got 'a b'"),
    ({"name": "x", "inner": []}, "f.yaml: inner: expected a mapping, got []"),
    ({"name": "x", "items": {"count": 1}}, "f.yaml: items: expected a list, got {'count': 1}"),
    ({"name": "x", "items": [{}, {"count": -1}]}, "f.yaml: items[1].count: expected a whole number >= 1, got -1"),
    ({}, "f.yaml: name: required key is missing"),
    ({"name": "x", "tags": []}, "f.yaml: tags: expected a list of length >= 1, got []"),
    ({"name": "x", "by_model": {"a/b": -1}}, "f.yaml: by_model.a/b: expected a whole number >= 0, got -1"),
    ({"name": "x", "by_model": {1: 1}}, "f.yaml: by_model.1: expected a string, got 1"),
    ({"name": "x", "label": 3}, "f.yaml: label: expected a string or null, got 3"),
    ({"name": "x", "limit": 0}, "f.yaml: limit: expected a whole number >= 1, got 0"),
    ({"name": "x", "since": "tomorrow"},
     "f.yaml: since: expected an ISO 8601 time like 2026-11-29T22:30:00Z, got 'tomorrow'"),
    ({"name": "x", "slug": "A1"}, "f.yaml: slug: expected a string matching '^[a-z]+$', got 'A1'"),
    ({"name": "x", "folder": ""}, "f.yaml: folder: expected a non-empty string, got ''"),
    ({"name": "x", "pair": ["a"]}, "f.yaml: pair: expected a list of 2 items, got ['a']"),
    ({"name": "x", "pair": ["a", "b"]}, "f.yaml: pair[1]: expected a whole number, got 'b'"),
    ({"name": ""}, "f.yaml: name: must not be empty"),
    ({"name": "x", "inner": {"count": 13}}, "f.yaml: inner.count: 13 is unlucky"),
    ({"name": "whole"}, "f.yaml: (top level): a whole-entry rule broken"),
    ([], "f.yaml: (top level): expected a mapping, got []"),
]


def test_the_pinned_msgspec() -> None:
    assert msgspec.__version__ == CHECKED_WITH, (
        f"msgspec {msgspec.__version__}: re-check tests/core/test_schema.py's cases, then move CHECKED_WITH")


@pytest.mark.parametrize(("raw", "message"), CASES)
def test_each_shape_is_worded_by_the_walk(raw: Any, message: str) -> None:
    with pytest.raises(Refused) as refused:
        read_as(raw, Outer, source="f.yaml", error=Refused, dec_hook=path_hook)
    assert str(refused.value) == message
    assert "\n" not in message and "`" not in message  # one line, and not msgspec's wording (`$.x`)


@pytest.mark.parametrize(("raw", "message"), [c for c in CASES if "unknown key" not in c[1]])
def test_msgspec_refuses_each_shape_too(raw: Any, message: str) -> None:
    """The walk only words a refusal: msgspec is the one that refuses (unknown keys are ours alone)."""
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert(raw, Outer, strict=True, dec_hook=path_hook)


def test_where_the_value_sits_prefixes_the_path() -> None:
    with pytest.raises(Refused, match=r"^models\.m/x\.inner\.count: expected a whole number >= 1, got 0$"):
        read_as({"name": "x", "inner": {"count": 0}}, Outer, source=None, error=Refused, dec_hook=path_hook,
                at="models.m/x")


def test_a_good_value_reads() -> None:
    got = read_as({"name": "x", "items": [{"count": 2}], "folder": "d", "since": "2026-11-29T22:30:00Z"},
                  Outer, source="f.yaml", error=Refused, dec_hook=path_hook)
    assert got.items == (Inner(count=2),) and got.folder == Path("d") and got.since is not None


def test_an_invalid_is_a_value_error_for_code_that_builds_a_declaration() -> None:
    with pytest.raises(ValueError, match="count: 13 is unlucky"):
        Inner(count=13)
