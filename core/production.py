"""A production record, `canary.production/1`: what a chat backend's sampled replies said, counts only.

The chat backend samples its own replies, runs the reply checks that do not depend on the prompt
in-process (provider_ignore/production.py) and writes one record per exporter per 30-minute
window. This declaration is the privacy boundary: every value is an integer, a number, a time, a
boolean or a word from a closed list; the only free-form strings are the model and provider,
held to the identifier patterns of core/tags.py, so no reply text, prompt or user id fits. A record
with any other string is refused whole, naming the file (`read_record`), and the round is judged
without it. The JSON Schema other languages write against is generated from this declaration
(docs/production.schema.json; tests/core/test_production_record.py keeps the two equal).
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from core.errors import InputError
from core.schema import Invalid, read_as
from core.tags import MODEL_PATTERN, PROVIDER_NAME_PATTERN
from core.vocabulary import LANGUAGES

SCHEMA = "canary.production/1"
MIN_CELL = 5   # a cell of fewer replies is merged into its model's remainder (no small cells)


class ProductionError(InputError):
    """A production record that cannot be read or breaks the format (the file is named)."""


class ProductionCheck(StrEnum):
    """The reply checks a backend runs on its own replies: those whose result does not depend on the
    prompt (docs/production.md says why refusal, fidelity and tools are not among them)."""

    ENCODING = "encoding"                   # undecoded byte-level tokens, mojibake, U+FFFD
    LEADING = "leading"                     # garbage before the reply's first word
    TEMPLATE = "template"                   # a chat template or role label leaked into the text
    EMPTY_STOP = "empty_stop"               # no text, yet the reply ended `stop`
    STREAM_INTEGRITY = "stream_integrity"   # cumulative or repeated deltas
    LIMITS = "limits"                       # more completion tokens than max_tokens allowed
    BILLING = "billing"                     # usage missing or inconsistent
    LANGUAGE = "language"                   # not in the language the product expected


class CheckOutcome(StrEnum):
    PASS = "pass"
    FAIL = "fail"


Model = Annotated[str, Meta(pattern=MODEL_PATTERN.pattern, title="an OpenRouter model id")]
# The `provider` of a reply as OpenRouter names it ("DeepInfra", "Google AI Studio"): words, not text.
Provider = Annotated[str, Meta(pattern=PROVIDER_NAME_PATTERN.pattern, title="a provider name")]
Exporter = Annotated[str, Meta(pattern=r"^[a-z0-9][a-z0-9._-]{0,63}\Z", title="an exporter name")]
Count = Annotated[int, Meta(ge=1)]
Language = Annotated[str, Meta(pattern=rf"^(?:{'|'.join(LANGUAGES)})\Z", title=f"one of {', '.join(LANGUAGES)}")]


class CountCell(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """n sampled replies of one model and provider that passed or failed one check, in one stratum.

    A provider of None is the model's remainder, where cells of fewer than MIN_CELL replies are merged."""

    model: Model                       # the OpenRouter model id the backend asked for
    provider: Provider | None          # the reply's `provider` (null: the model's remainder)
    check: ProductionCheck             # one of ProductionCheck: encoding, leading, ..., language
    outcome: CheckOutcome              # pass or fail
    n: Count                           # how many sampled replies, at least 1
    language: Language | None = None   # the language the product expected (a stratum; absent: not given)
    stream: bool | None = None         # streamed or not (a stratum)


class ServedCell(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """n sampled replies of one model served by one provider (the replies each check's counts are out of).

    `ambiguous` when that provider runs several endpoints of the model, so a reply cannot be pinned
    to one: such a cell is never used for a rule."""

    model: Model
    provider: Provider | None          # null: the model's remainder
    n: Count                           # sampled replies, at least 1
    ambiguous: bool = False            # the provider runs several endpoints of the model


class ReportCell(msgspec.Struct, frozen=True, kw_only=True):
    """n user reports about replies of one model served by one provider in the window."""

    model: Model
    provider: Provider | None          # null: the provider is not known
    n: Count                           # user reports, at least 1


class ProductionRecord(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One exporter's window: the checks' counts, the replies sampled per endpoint, the reports."""

    schema: Literal["canary.production/1"]
    exporter: Exporter                 # the backend that wrote it (lowercase letters, digits, `.`, `_`, `-`)
    window_start: datetime             # RFC 3339 with its offset
    window_end: datetime               # after window_start (30 minutes later for the Python sampler)
    sample_rate: Annotated[float, Meta(gt=0, le=1)]   # the share of conversations sampled
    counts: tuple[CountCell, ...] = ()  # each check's outcomes
    served: tuple[ServedCell, ...] = ()  # replies sampled per endpoint
    reports: tuple[ReportCell, ...] = ()  # user reports per endpoint

    def __post_init__(self) -> None:
        if self.window_start.tzinfo is None or self.window_end.tzinfo is None:
            raise Invalid("window_start", "times carry their offset (RFC 3339: 2026-12-07T10:00:00Z)")
        if self.window_end <= self.window_start:
            raise Invalid("window_end", "the window ends after it starts")


def read_record(raw: Any, *, source: str) -> ProductionRecord:
    """The record in `raw` (decoded JSON), or ProductionError naming `source` and the first thing wrong."""
    return read_as(raw, ProductionRecord, source=source, error=ProductionError)


def record_json(record: ProductionRecord) -> bytes:
    """The record as the backend writes it (compact JSON, keys in declaration order)."""
    return msgspec.json.encode(record)


def json_schema() -> dict[str, Any]:
    """The record's JSON Schema (draft 2020-12), for backends written in another language.

    Two things msgspec's schema leaves out are said here: an unknown key is refused (`read_record`
    refuses it: a key is a place text could hide), and the patterns end with Python's `\\Z` (`$`
    would let a trailing newline through), which ECMA-262's regular expressions (JSON Schema's) do
    not have and whose `$` already means the end of the text."""
    schema: dict[str, Any] = _for_schema(msgspec.json.schema(ProductionRecord))
    return schema


def _for_schema(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return [_for_schema(v) for v in value]
    if not isinstance(value, dict):
        return value
    out = {k: v.removesuffix("\\Z") + "$" if k == "pattern" and v.endswith("\\Z") else _for_schema(v)
           for k, v in value.items()}
    return {**out, "additionalProperties": False} if "properties" in out else out
