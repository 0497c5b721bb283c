"""The round record: reports/results.json (schema_version 2), its records and its form declared once.

    RoundResults         one round (or the merge of its shards)
    ├── CaseResult       one model x endpoint x contract case, with its AttemptResults
    ├── ControlNote      a weak probe (its positive control passed) or an unprobed control
    ├── Incomplete       why the round cannot be trusted (IncompleteKind + the words for people)
    └── usage()          requests, tokens and cost per model and provider (ProviderUsage), derived

The file's form is declared once, as frozen msgspec Structs: `ResultsFile` (the document, its keys
in the order they are written), `ModelEntry`, `CaseEntry`, `AttemptEntry`, and ControlNote,
Incomplete and ProviderUsage, which are both record and entry. The records the judge works on
(RoundResults, CaseResult, AttemptResult: frozen dataclasses, which the judge `replace`s) turn
into their entries (`entry()`) and back (`from_entry`); each field's reading rule sits on its
entry's declaration, as its type (`Amount`, `Check`, `bool`) or, where a type cannot say it, as a
`ReadBy(rule)` beside the type (`measurement`, `count`, `writable_text`: core/field_rules.py).

Written once per round by the probes (`RoundResults.to_json`: the ResultsFile through
msgspec.to_builtins), read by everyone through `read_results` / `RoundResults.from_json` (the
judge, `canary summary`, `canary probe`'s exit code, the history, incident excerpts), merged by
`merge_shards` (the workflow probes one model per job; the judge and the summary see one round).
One declaration, read two ways: the top level strictly by ResultsFile (`read_document`: each
refusal worded by core/schema.py's walk), each upstream entry in it on its own and leniently
(`read_case`, `lenient_entry`), so one odd value costs its field and one bad entry only itself:

- what the judge decides on is checked, and a document it cannot trust is refused with
  ResultsError naming the key: not an object, a schema_version it does not read, an unsafe round
  id, a missing or bad `started_at` (an RFC 3339 time; without an offset it is UTC), a bad
  `finished_at`, `complete` not a boolean, `models`/`cases`/`weak_probes`/`unprobed_controls` not
  a mapping or list of objects, a model without its list of `providers`;
- the top level's other keys are read leniently (`ReadBy`): an `upstream` that is not a safe tag
  reads as none, a `clock` other than `virtual` as `real`, `usage` is derived from the cases and
  never read, and an unreadable `incomplete` falls back on `incomplete_reason`'s words;
- upstream data that is merely odd does not sink the round: a case (or a control note) whose
  model or provider tag fails the safety pattern, or whose outcome is unknown, is set aside as a
  RejectedInput (the judge writes those to the audit log); an attempt that is not an object or
  has no known outcome is left out; any other field whose value its declaration does not read (a
  TTFT that is not a number, a negative token count, a `refusal` other than pass or fail) reads
  as its default (absent, 0, false); so does an amount of money no real reply has (`billed_usd`,
  `listed_usd`, `cost_usd` above MAX_BILL_USD, an integer too large for a float), with a
  RejectedInput naming it. Free text (reasons, excerpts, the language) is made writable as UTF-8
  (lone surrogates from JSON become "?"); a reason or contract that is not a string reads as its
  text, as it always has.

Schema_version 2 added `code` to each case and attempt: the verdict's code (judge/replies/verdict.py),
what history and control flow read. A version 1 file is still read: written before codes, its
entries read with their outcome's catch-all code (core/vocabulary.py `catch_all_code`) and keep their
reasons as text; nothing reads a reason's words.

Optional, additive fields (absent from older files, read with their defaults): `clock`
(`real`), `controls_source`, `unprobed_controls`, `incomplete` (the typed reasons; an older
incomplete file reads as one reason of kind `unknown` with its `incomplete_reason`); per
attempt `chars`, `refusal` and `integrity` (+ `integrity_reason` when it failed), `decode_tps`,
`advertised_p50_tps` and `advertised_slowest_tps` (issue 22's decode speed, written when
measured), on completed streams `usage_reported`, `prompt_tokens`, `billed_usd` and `listed_usd`,
and `items` (the fidelity contract's kind -> pass | fail); per model `limits` and `notes`
(discovery's listed limits and its sanity notes; issue 22) and `names` (each tag's provider name);
per case `confirmation` (a confirmation's majority, issue 39).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any, Final, Literal, TypeVar, cast

import msgspec
from msgspec import UNSET, UnsetType

from core.errors import InputError
from core.field_rules import (
    MAX_BILL_USD,
    MAX_COUNT,
    Amount,
    Check,
    EachAlone,
    ReadBy,
    as_count,
    count,
    is_one_of,
    lenient_entry,
    measurement,
    optional_text,
    read_document,
    short_figure,
    text,
    writable_text,
)
from core.schema import shown
from core.tags import ROUND_ID_PATTERN, describe_invalid_tag, is_provider_name, is_valid_tag
from core.times import as_utc
from core.vocabulary import CODE, Outcome, case_id, catch_all_code

SCHEMA_VERSION: Final = 2
# The versions read: 1 has no `code` (its entries read with their outcome's catch-all code).
ReadVersion = Literal[1, 2]
EXCERPT_CHARS = 300           # how much of each reply results.json keeps (the rest is in Allure)
_AMOUNTS = ("billed_usd", "listed_usd")
REAL, VIRTUAL = "real", "virtual"
_OUTCOMES = {o.value: o for o in Outcome}
# A round id as results.json's declaration reads it (core/tags.py's pattern: core/tags.py itself
# ships with the backend's library, which has no msgspec).
RoundId = Annotated[str, msgspec.Meta(pattern=ROUND_ID_PATTERN.pattern,
                                      title="a round id (letters, digits and ._:+-, no '..', at most 1,024)")]
_CHECKS = {Outcome.PASS.value: Outcome.PASS, Outcome.FAIL.value: Outcome.FAIL}
# The code of a case OpenRouter refused with a bare 402 while GET /key accepted our key: the request
# may cost more than the key has left (probes/http/client.py). Frozen, and said once for the round.
KEY_LIMIT: Final = "key_limit"


class ResultsError(InputError):
    """A results.json (one round's record) that cannot be trusted; the message names the field."""


class IncompleteKind(StrEnum):
    """Why a round is incomplete: the judge changes no streak for it, `canary probe` exits 1 (3: AUTH)."""

    DISCOVERY = "discovery"        # a model's discovery failed or returned nonsense
    AUTH = "auth"                  # the upstream refused our API key
    INTERRUPTED = "interrupted"    # Ctrl-C, a signal
    CUT_SHORT = "cut_short"        # cases ended without a probe result (-x, timeout, harness error)
    NOTHING_RAN = "nothing_ran"    # no case ran (nothing selected?)
    UNKNOWN = "unknown"            # an older file: only the text is known


class Incomplete(msgspec.Struct, frozen=True):
    """One reason why a round is incomplete."""

    kind: IncompleteKind  # what went wrong, for code (`canary probe`'s exit code)
    detail: str                    # the words for people, as `incomplete_reason` shows them


@dataclass(frozen=True, slots=True, kw_only=True)
class AttemptResult:
    """One request of a case (two HTTP requests when the first was lost before any byte)."""

    outcome: Outcome  # this attempt's outcome
    code: str  # why, as a code (judge/replies/verdict.py): what history and the judge read
    reason: str  # why, in words
    ttft_s: float | None = None  # time to the first token
    total_s: float | None = None  # time to the last byte
    finish_reason: str | None = None  # as the reply gave it
    error_kind: str | None = None  # the kind of a transport or upstream error
    served_by: str | None = None  # the provider that answered
    requests: int = 1  # HTTP requests of this attempt (2: the first was lost before any byte)
    excerpt: str = ""              # the first EXCERPT_CHARS characters of the reply
    chars: int | None = None       # the reply's whole length (None: an older file)
    refusal: Outcome | None = None  # latency/language replies: PASS or FAIL of the refusal check
    integrity: Outcome | None = None  # every completed reply: PASS or FAIL of judge/replies/integrity.py's check
    integrity_reason: str = ""     # the defect, when integrity failed
    # Issue 22's decode speed: tokens/s after the first token (None: not measurable), and the
    # endpoint's advertised throughput (discovery's throughput_last_30m p50 and slowest percentile).
    decode_tps: float | None = None
    advertised_p50_tps: float | None = None
    advertised_slowest_tps: float | None = None
    # Billing honesty (issue 22), on completed streams only (None: not one, or an older file):
    usage_reported: bool | None = None  # the stream carried usage
    prompt_tokens: int | None = None    # its usage.prompt_tokens (judge/suspension/prompt_tokens.py)
    billed_usd: float | None = None     # usage.cost, and the same usage at the listed prices
    listed_usd: float | None = None
    # fidelity: (item kind, PASS or FAIL) per item, in the order asked; judge/suspension/fidelity.py
    # sets INCONCLUSIVE on an item type no peer answered right (not part of the file then).
    items: tuple[tuple[str, Outcome], ...] = ()
    # Not part of the file: set by judge/suspension/short_replies.py, far shorter than the peers' replies.
    short: bool = False

    def entry(self) -> AttemptEntry:
        """The attempt as results.json holds it."""
        return AttemptEntry(
            outcome=self.outcome, code=str(self.code), reason=self.reason, ttft_s=self.ttft_s, total_s=self.total_s,
            finish_reason=self.finish_reason, error_kind=self.error_kind, served_by=self.served_by,
            requests=self.requests, excerpt=self.excerpt, chars=self.chars, refusal=_check(self.refusal),
            integrity=_check(self.integrity), integrity_reason=self.integrity_reason or None,
            decode_tps=_unset(self.decode_tps), advertised_p50_tps=_unset(self.advertised_p50_tps),
            advertised_slowest_tps=_unset(self.advertised_slowest_tps),
            usage_reported=_unset(self.usage_reported), prompt_tokens=_unset(self.prompt_tokens),
            billed_usd=_unset(self.billed_usd), listed_usd=_unset(self.listed_usd),
            items={k: cast(Check, o.value) for k, o in self.items} if self.items else UNSET)

    @classmethod
    def from_entry(cls, e: AttemptEntry) -> AttemptResult:
        return cls(outcome=e.outcome, code=e.code, reason=e.reason, ttft_s=e.ttft_s, total_s=e.total_s,
                   finish_reason=e.finish_reason, error_kind=e.error_kind, served_by=e.served_by,
                   requests=e.requests, excerpt=e.excerpt, chars=e.chars, refusal=_checked(e.refusal),
                   integrity=_checked(e.integrity), integrity_reason=e.integrity_reason or "",
                   decode_tps=_set(e.decode_tps), advertised_p50_tps=_set(e.advertised_p50_tps),
                   advertised_slowest_tps=_set(e.advertised_slowest_tps), usage_reported=_set(e.usage_reported),
                   prompt_tokens=_set(e.prompt_tokens), billed_usd=_set(e.billed_usd), listed_usd=_set(e.listed_usd),
                   items=() if isinstance(e.items, UnsetType) else tuple((k, _CHECKS[v]) for k, v in e.items.items()))

    def to_json(self) -> dict[str, Any]:
        return _builtins(self.entry())

    @classmethod
    def from_json(cls, raw: Any) -> AttemptResult | None:
        """An attempt, or None when the entry is not one (attempts are evidence, never a reason to refuse)."""
        entry = read_attempt(raw)
        return None if entry is None else cls.from_entry(entry)


@dataclass(frozen=True, slots=True, kw_only=True)
class CaseResult:
    """One model x endpoint x contract case of a round: its outcome, why, and what it cost."""

    model: str  # the model id
    provider: str  # the endpoint's provider tag
    contract: str  # a contract's name (core/vocabulary.py DECLARED)
    outcome: Outcome  # pass | fail | inconclusive | transport_error | not_applicable
    code: str  # why, as a code (judge/replies/verdict.py): what history and the judge read
    reason: str  # why, in words (upstream text, cleaned)
    language: str | None = None    # the language contract only
    anomaly: bool = False          # the language contract: the first attempt failed (confirmations ran)
    control: bool = False          # a refusal case on a positive-control host (judges the probe)
    ttft_s: float | None = None    # the first attempt's
    duration_s: float | None = None  # the case's whole time
    requests: int = 0  # HTTP requests the case made
    prompt_tokens: int = 0  # as the upstream reported them
    completion_tokens: int = 0  # as the upstream reported them
    cost_usd: float = 0.0  # as the upstream reported it
    served_by: str | None = None  # the provider that answered (OpenRouter's `provider` field)
    attempts: tuple[AttemptResult, ...] = ()  # each request of the case, in order (a confirmation's: every run's)
    # A confirmation production evidence asked for (judge/suspension/production.py): the strict
    # majority of the contract's three runs (the outcome above is the first run's). None: not one.
    confirmation: Outcome | None = None

    @property
    def id(self) -> str:
        return case_id(self.model, self.provider, self.contract)

    def entry(self) -> CaseEntry:
        """The case as results.json holds it."""
        return CaseEntry(
            model=self.model, provider=self.provider, contract=self.contract, outcome=self.outcome,
            code=str(self.code), reason=self.reason, language=self.language, anomaly=self.anomaly,
            control=self.control, ttft_s=self.ttft_s, duration_s=self.duration_s, requests=self.requests,
            prompt_tokens=self.prompt_tokens, completion_tokens=self.completion_tokens, cost_usd=self.cost_usd,
            served_by=self.served_by, attempts=tuple(a.entry() for a in self.attempts),
            confirmation=_unset(self.confirmation))

    def to_json(self) -> dict[str, Any]:
        return _builtins(self.entry())

    @classmethod
    def from_entry(cls, e: CaseEntry) -> CaseResult:
        return cls(model=e.model, provider=e.provider, contract=e.contract, outcome=e.outcome, code=e.code,
                   reason=e.reason, language=e.language, anomaly=e.anomaly, control=e.control, ttft_s=e.ttft_s,
                   duration_s=e.duration_s, requests=e.requests, prompt_tokens=e.prompt_tokens,
                   completion_tokens=e.completion_tokens, cost_usd=e.cost_usd or 0.0, served_by=e.served_by,
                   attempts=tuple(AttemptResult.from_entry(a) for a in e.attempts), confirmation=_set(e.confirmation))

    @classmethod
    def from_json(cls, item: Mapping[str, Any]) -> CaseResult:
        """One case entry read leniently (`read_case`); the caller has checked its tags and outcome
        (RoundResults.from_json sets a case with unsafe tags or an unknown outcome aside)."""
        return cls.from_entry(read_case(item))


class ControlNote(msgspec.Struct, frozen=True):
    """A positive control that passed (`weak_probes`) or gave no verdict (`unprobed_controls`)."""

    model: str  # the model id
    contract: str  # the probe's contract (refusal)
    control: str  # the control host's tag
    reason: str  # what the control did

    def to_json(self) -> dict[str, str]:
        return _builtins(self)


@dataclass(frozen=True, slots=True)
class RejectedInput:
    """Upstream data set aside on reading instead of trusted (never written back)."""

    model: str
    provider: str
    problem: str
    part: str = "cases"            # where it was: cases, models, weak_probes or unprobed_controls


class ProviderUsage(msgspec.Struct, frozen=True):
    """What one endpoint's cases cost (derived from the cases when the file is written)."""

    requests: int = 0  # HTTP requests
    prompt_tokens: int = 0  # summed over the cases
    completion_tokens: int = 0  # summed over the cases
    cost_usd: float = 0.0  # summed over the cases, 8 decimals

    def to_json(self) -> dict[str, float]:
        return _builtins(self)


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundResults:
    """One round: when, against what, every case, and whether it can be trusted."""

    round_id: str  # the round's id (merged shards: their ids, sorted, joined with "+")
    started_at: datetime  # when the round started (UTC, whole seconds)
    finished_at: datetime | None = None  # when it finished (None: cut short before the end was written)
    complete: bool = True  # false: the round cannot be trusted and the judge changes no streak
    incomplete: tuple[Incomplete, ...] = ()  # why it is incomplete (empty when complete)
    upstream: str | None = None            # openrouter | simulator | custom; merged shards: "a+b"
    models: Mapping[str, tuple[str, ...]] = field(default_factory=dict)   # model -> discovered tags, sorted
    cases: tuple[CaseResult, ...] = ()  # every model x endpoint x contract case
    weak_probes: tuple[ControlNote, ...] = ()  # refusal probes whose positive control passed (no evidence this round)
    unprobed_controls: tuple[ControlNote, ...] = ()  # positive controls that gave no verdict
    clock: str = REAL                      # virtual: a simulator round of `canary round` on its virtual clock
    controls_source: str | None = None     # canary.yaml, or "simulator scenario <name>"
    # model -> tag -> (context_length, max_completion_tokens) as discovery listed them, and model ->
    # discovery's sanity notes (judge/replies/listing.py): `models.M.limits` / `models.M.notes`, optional.
    limits: Mapping[str, Mapping[str, tuple[int | None, int | None]]] = field(default_factory=dict)
    listing_notes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # model -> tag -> the provider's display name as discovery listed it, which is what replies name
    # (`models.M.names`, optional): production records name providers so (judge/suspension/production.py).
    names: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    # Not part of the file: what reading set aside, and (judge/suspension/planned.py) planned models without results.
    rejected: tuple[RejectedInput, ...] = ()
    missing: Mapping[str, str] = field(default_factory=dict)

    @property
    def incomplete_reason(self) -> str | None:
        """The reasons' words joined with "; " (None when complete): what older readers show."""
        return "; ".join(i.detail for i in self.incomplete) or None

    @property
    def key_limit_note(self) -> str | None:
        """What the round says when requests were refused for the key's limit (KEY_LIMIT), else None."""
        hosts = sorted({c.provider for c in self.cases if c.code == KEY_LIMIT})
        return (f"a request to {', '.join(hosts[:3])}{' and others' if hosts[3:] else ''} may "
                "cost more than the key has left (HTTP 402; those cases are frozen): raise the key's limit or add "
                "credits") if hosts else None

    def incomplete_kinds(self) -> frozenset[IncompleteKind]:
        return frozenset(i.kind for i in self.incomplete)

    def upstreams(self) -> frozenset[str]:
        return frozenset(self.upstream.split("+")) if self.upstream else frozenset()

    def round_ids(self) -> tuple[str, ...]:
        """The ids of the shards this round was merged from (itself when it is one file)."""
        return tuple(self.round_id.split("+"))

    def usage(self) -> dict[str, dict[str, ProviderUsage]]:
        """Requests, tokens and cost per model and provider, summed over the cases."""
        totals: dict[str, dict[str, ProviderUsage]] = {}
        for c in self.cases:
            u = totals.setdefault(c.model, {}).get(c.provider, ProviderUsage())
            totals[c.model][c.provider] = ProviderUsage(
                u.requests + c.requests, u.prompt_tokens + c.prompt_tokens,
                u.completion_tokens + c.completion_tokens, round(u.cost_usd + c.cost_usd, 8))
        return totals

    def to_json(self) -> dict[str, Any]:
        return _builtins(ResultsFile(
            schema_version=SCHEMA_VERSION, round_id=self.round_id, started_at=_whole(self.started_at),
            finished_at=_whole(self.finished_at) if self.finished_at is not None else None,
            complete=self.complete, incomplete_reason=self.incomplete_reason, incomplete=self.incomplete,
            upstream=self.upstream, clock=self.clock, controls_source=self.controls_source,
            models={m: ModelEntry(tags, limits=dict(self.limits[m]) if self.limits.get(m) else UNSET,
                                  notes=self.listing_notes[m] if self.listing_notes.get(m) else UNSET,
                                  names=dict(self.names[m]) if self.names.get(m) else UNSET)
                    for m, tags in self.models.items()},
            weak_probes=self.weak_probes, unprobed_controls=self.unprobed_controls,
            cases=tuple(c.entry() for c in self.cases), usage=self.usage()))

    @classmethod
    def from_json(cls, raw: Any, source: str | None = None) -> RoundResults:
        """Decoded results.json data as a round: its top level read by ResultsFile's declaration
        (`read_document`: what the judge decides on refuses the file, ResultsError naming the key),
        each of its upstream entries on its own (see the module docstring for what is set aside)."""
        doc = read_document(raw, ResultsFile, source=source, error=ResultsError)
        complete = doc["complete"]
        rejected: list[RejectedInput] = []
        models: dict[str, dict[str, Any]] = doc["models"]
        incomplete = doc["incomplete"]
        if not complete and not incomplete and doc["incomplete_reason"] is not None:
            incomplete = (Incomplete(IncompleteKind.UNKNOWN, doc["incomplete_reason"]),)
        return cls(
            round_id=doc["round_id"], started_at=as_utc(doc["started_at"]),
            finished_at=as_utc(doc["finished_at"]),
            complete=complete, incomplete=incomplete, upstream=doc["upstream"],
            models=_models(models, rejected, source),
            cases=_cases(doc["cases"], rejected),
            limits=_limits(models), listing_notes=_listing_notes(models), names=_names(models),
            weak_probes=_notes(doc["weak_probes"], "weak_probes", rejected),
            unprobed_controls=_notes(doc["unprobed_controls"], "unprobed_controls", rejected),
            clock=doc["clock"], controls_source=doc["controls_source"], rejected=tuple(rejected),
        )


# results.json's form (the module docstring says how it is written and read).

class AttemptEntry(msgspec.Struct, frozen=True, kw_only=True):
    """An attempt as results.json holds it (AttemptResult): the UNSET fields are left out of an
    attempt that has none, so the files of the contracts that measure nothing of it read as before."""

    outcome: Outcome
    code: str
    reason: Annotated[str, ReadBy(writable_text)] = ""
    ttft_s: Annotated[float | None, ReadBy(measurement)] = None
    total_s: Annotated[float | None, ReadBy(measurement)] = None
    finish_reason: Annotated[str | None, ReadBy(optional_text)] = None
    error_kind: Annotated[str | None, ReadBy(optional_text)] = None
    served_by: Annotated[str | None, ReadBy(optional_text)] = None
    requests: Annotated[int, ReadBy(count)] = 1
    excerpt: Annotated[str, ReadBy(text)] = ""
    chars: Annotated[int | None, ReadBy(count)] = None
    refusal: Check | None = None
    integrity: Check | None = None
    integrity_reason: Annotated[str | None, ReadBy(text)] = None  # null when integrity held
    decode_tps: Annotated[float | UnsetType, ReadBy(measurement)] = UNSET
    advertised_p50_tps: Annotated[float | UnsetType, ReadBy(measurement)] = UNSET
    advertised_slowest_tps: Annotated[float | UnsetType, ReadBy(measurement)] = UNSET
    usage_reported: bool | UnsetType = UNSET
    prompt_tokens: Annotated[int | UnsetType, ReadBy(count)] = UNSET
    billed_usd: Amount | UnsetType = UNSET
    listed_usd: Amount | UnsetType = UNSET
    items: Annotated[dict[str, Check] | UnsetType, ReadBy(_items)] = UNSET


class CaseEntry(msgspec.Struct, frozen=True, kw_only=True):
    """A case as results.json holds it (CaseResult); `model`, `provider`, `outcome`, `code` and
    `attempts` are read by the caller (RoundResults.from_json sets a case aside on them)."""

    model: str
    provider: str
    contract: Annotated[str, ReadBy(writable_text)] = ""
    outcome: Outcome
    code: str
    reason: Annotated[str, ReadBy(writable_text)] = ""
    language: Annotated[str | None, ReadBy(text)] = None
    anomaly: bool = False
    control: bool = False
    ttft_s: Annotated[float | None, ReadBy(measurement)] = None
    duration_s: Annotated[float | None, ReadBy(measurement)] = None
    requests: Annotated[int, ReadBy(count)] = 0
    prompt_tokens: Annotated[int, ReadBy(count)] = 0
    completion_tokens: Annotated[int, ReadBy(count)] = 0
    cost_usd: Amount = 0.0
    served_by: Annotated[str | None, ReadBy(optional_text)] = None
    attempts: tuple[AttemptEntry, ...] = ()
    confirmation: Outcome | UnsetType = UNSET


class ModelEntry(msgspec.Struct, frozen=True):
    """A model of `models`: its discovered tags, and discovery's limits and notes when it had any."""

    providers: tuple[str, ...]
    # tag -> [context_length, max_completion_tokens]
    limits: dict[str, tuple[int | None, int | None]] | UnsetType = UNSET
    notes: tuple[str, ...] | UnsetType = UNSET
    names: dict[str, str] | UnsetType = UNSET  # tag -> the provider's display name (what replies name)


class ResultsFile(msgspec.Struct, frozen=True, kw_only=True):
    """reports/results.json, in the order its keys are written, and how each key is read back
    (`read_document`): a key declared by its type alone is one the judge trusts, and a value it does
    not read refuses the file; a `ReadBy` key is read leniently; an `EachAlone` key holds upstream
    entries, read one by one so that a bad one is set aside alone (RoundResults.from_json)."""

    schema_version: ReadVersion  # written: SCHEMA_VERSION
    round_id: RoundId
    started_at: datetime  # UTC, whole seconds; a time without an offset reads as UTC
    finished_at: datetime | None = None
    complete: bool
    incomplete_reason: Annotated[str | None, ReadBy(text)] = None  # an older file's only reason
    incomplete: Annotated[tuple[Incomplete, ...], ReadBy(_incomplete)] = ()
    upstream: Annotated[str | None, ReadBy(_tag)] = None
    clock: Annotated[str, ReadBy(_virtual)] = REAL
    controls_source: Annotated[str | None, ReadBy(text)] = None
    models: Annotated[dict[str, ModelEntry], EachAlone()]
    weak_probes: Annotated[tuple[ControlNote, ...], EachAlone()] = ()
    unprobed_controls: Annotated[tuple[ControlNote, ...], EachAlone()] = ()
    cases: Annotated[tuple[CaseEntry, ...], EachAlone()]
    usage: Annotated[dict[str, dict[str, ProviderUsage]], ReadBy(_derived)] = {}


def read_case(item: Mapping[str, Any]) -> CaseEntry:
    """A case entry whose tags and outcome are known good, every other field read leniently; an
    attempt that is not one is left out."""
    attempts = item.get("attempts")
    read = (read_attempt(raw) for raw in (attempts if isinstance(attempts, list) else []))
    return lenient_entry(item, CaseEntry, model=str(item.get("model")), provider=str(item.get("provider")),
                         outcome=_OUTCOMES[str(item.get("outcome"))], code=read_code(item),
                         attempts=tuple(a for a in read if a is not None))


def read_attempt(raw: Any) -> AttemptEntry | None:
    """An attempt entry read leniently, or None when it is not one (not an object, no known outcome)."""
    if not isinstance(raw, Mapping) or not is_one_of(raw.get("outcome"), _OUTCOMES):
        return None
    return lenient_entry(raw, AttemptEntry, outcome=_OUTCOMES[raw["outcome"]], code=read_code(raw))


def _builtins(record: msgspec.Struct) -> dict[str, Any]:
    """An entry as JSON's types: msgspec.to_builtins keeps a tuple a tuple, and the file's arrays are
    lists (as json.loads gives them)."""
    out: dict[str, Any] = _lists(msgspec.to_builtins(record))
    return out


def _lists(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _lists(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_lists(v) for v in value]
    return value


def _check(value: Outcome | None) -> Check | None:
    """A check's outcome as the file holds it (its value: the judge may mark an item inconclusive)."""
    return None if value is None else cast(Check, value.value)


def _checked(value: Check | None) -> Outcome | None:
    return None if value is None else _CHECKS[value]


T = TypeVar("T")


def _unset(value: T | None) -> T | UnsetType:
    """A field written only when present: None in the record, left out of the file."""
    return UNSET if value is None else value


def _set(value: T | UnsetType) -> T | None:
    return None if isinstance(value, UnsetType) else value


def read_results(raw: Any, source: str | None = None) -> RoundResults:
    """RoundResults.from_json, with the file named in the error."""
    return RoundResults.from_json(raw, source)


def merge_shards(shards: Sequence[RoundResults], sources: Sequence[str] | None = None) -> RoundResults:
    """One round from several shards; two shards may not both hold the same model.

    The merged id is the distinct shard ids, sorted, joined with "+": the same set of shards
    always gives the same id, so re-applying them is recognised as already applied.

    An incomplete shard (a discovery 503, a probe cut short) is incomplete for its own models
    only, as a missing shard is: they are recorded in `missing` with the shard's reasons and none
    of its cases or control notes is judged, while the complete shards' models are. The merged
    round is incomplete only when every shard is. A shard whose models cannot be told (no
    `models`, no case) is set aside the same way: the models it held are absent, and an absent
    model changes nothing (with the plan, judge/suspension/planned.py names them missing).
    """
    if not shards:
        raise ResultsError("no results files given")
    if len(shards) == 1:
        return shards[0]
    names = list(sources) if sources is not None else [r.round_id for r in shards]
    owner: dict[str, str] = {}
    for shard, name in zip(shards, names, strict=True):
        for model in shard.models:
            if model in owner:
                raise ResultsError(f"model {model} appears in two shards ({owner[model]} and {name}); "
                                   "each shard must probe different models")
            owner[model] = name
    if any(r.complete for r in shards) and not all(r.complete for r in shards):
        return _merge_partly(shards, names)
    incomplete = tuple(
        Incomplete(i.kind, f"{name}: {i.detail}" if n == 0 else i.detail)
        for r, name in zip(shards, names, strict=True) if not r.complete
        for n, i in enumerate(r.incomplete or (Incomplete(IncompleteKind.UNKNOWN, "incomplete"),)))
    finished = [r.finished_at for r in shards if r.finished_at is not None]
    sources_of_controls = sorted({r.controls_source for r in shards if r.controls_source})
    return RoundResults(
        round_id="+".join(sorted({r.round_id for r in shards})),
        started_at=min(r.started_at for r in shards),
        finished_at=max(finished) if finished else None,
        complete=all(r.complete for r in shards), incomplete=incomplete,
        upstream="+".join(sorted({u for r in shards for u in r.upstreams()})) or None,
        models={m: p for r in shards for m, p in r.models.items()},
        limits={m: v for r in shards for m, v in r.limits.items()},
        listing_notes={m: v for r in shards for m, v in r.listing_notes.items()},
        names={m: v for r in shards for m, v in r.names.items()},
        cases=tuple(c for r in shards for c in r.cases),
        weak_probes=tuple(w for r in shards for w in r.weak_probes),
        unprobed_controls=tuple(u for r in shards for u in r.unprobed_controls),
        clock=VIRTUAL if any(r.clock == VIRTUAL for r in shards) else REAL,
        controls_source=", ".join(sources_of_controls) or None,
        rejected=tuple(x for r in shards for x in r.rejected),
    )


def _merge_partly(shards: Sequence[RoundResults], names: Sequence[str]) -> RoundResults:
    """Complete and incomplete shards: the complete ones make the round, the others' models are missing."""
    kept = [r for r in shards if r.complete]
    merged = merge_shards(kept)
    missing = dict(merged.missing)
    for shard, name in zip(shards, names, strict=True):
        if shard.complete:
            continue
        why = "; ".join(i.detail for i in shard.incomplete) or "no reason given"
        for model in dict.fromkeys([*shard.models, *(c.model for c in shard.cases)]):
            missing.setdefault(model, f"its shard ({name}) is incomplete: {why}; nothing moves for it")
    set_aside = [r for r in shards if not r.complete]
    finished = [r.finished_at for r in shards if r.finished_at is not None]
    return replace(
        merged, round_id="+".join(sorted({r.round_id for r in shards})),
        started_at=min(r.started_at for r in shards), finished_at=max(finished) if finished else None,
        upstream="+".join(sorted({u for r in shards for u in r.upstreams()})) or None,
        rejected=merged.rejected + tuple(x for r in set_aside for x in r.rejected), missing=missing)


def _incomplete(raw: Any) -> tuple[Incomplete, ...] | None:
    """`incomplete`'s reasons, read leniently: a kind no reader knows reads as `unknown`."""
    if not isinstance(raw, list):
        return None
    kinds = {k.value: k for k in IncompleteKind}
    return tuple(Incomplete(kinds.get(str(i.get("kind")), IncompleteKind.UNKNOWN), writable_text(i.get("detail", "")))
                 for i in raw if isinstance(i, Mapping)) or None


def _tag(raw: Any) -> str | None:
    return raw if is_valid_tag(raw) else None


def _virtual(raw: Any) -> str | None:
    return VIRTUAL if raw == VIRTUAL else None


def _derived(raw: Any) -> None:
    """`usage` is derived from the cases (RoundResults.usage): what the file says is not read."""
    return None


def _whole(at: datetime) -> datetime:
    """A time as results.json writes a round's times: UTC, whole seconds (msgspec writes UTC as Z)."""
    return as_utc(at).replace(microsecond=0)


def _models(raw: Mapping[str, Mapping[str, Any]], rejected: list[RejectedInput],
            source: str | None) -> dict[str, tuple[str, ...]]:
    models: dict[str, tuple[str, ...]] = {}
    for model, entry in raw.items():
        if not is_valid_tag(model):
            rejected.append(RejectedInput(_shown(model), "*", describe_invalid_tag(model), "models"))
            continue
        providers = entry.get("providers")
        if not isinstance(providers, list):
            where = f"{source}: " if source else ""
            raise ResultsError(f"{where}models.{model}.providers: expected a list of endpoint tags, "
                               f"got {shown(providers)}")
        good = []
        for tag in providers:
            if is_valid_tag(tag):
                good.append(tag)
            else:
                rejected.append(RejectedInput(model, _shown(tag), describe_invalid_tag(tag), "models"))
        models[model] = tuple(sorted(set(good)))
    return models


def _limits(raw: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, tuple[int | None, int | None]]]:
    """`models.M.limits` (tag -> [context_length, max_completion_tokens]): evidence for notes, read
    leniently (an unsafe tag or a figure that is not a count is left out)."""
    out: dict[str, dict[str, tuple[int | None, int | None]]] = {}
    for model, entry in raw.items():
        limits = entry.get("limits")
        if not is_valid_tag(model) or not isinstance(limits, Mapping):
            continue
        out[model] = {t: (_listed(v[0]), _listed(v[1])) for t, v in limits.items()
                      if is_valid_tag(t) and isinstance(v, list) and len(v) == 2}
    return out


def _listed(value: Any) -> int | None:
    count = as_count(value, default=None)
    return count if count is not None and count <= MAX_COUNT else None


def _names(raw: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, str]]:
    """`models.M.names` (tag -> provider name), read leniently: an unsafe tag or a name that is no
    identifier (core/production.py's pattern) is left out."""
    out = {}
    for model, entry in raw.items():
        names = entry.get("names")
        if is_valid_tag(model) and isinstance(names, Mapping):
            out[model] = {t: n for t, n in names.items() if is_valid_tag(t) and is_provider_name(n)}
    return out


def _listing_notes(raw: Mapping[str, Mapping[str, Any]]) -> dict[str, tuple[str, ...]]:
    out = {}
    for model, entry in raw.items():
        notes = entry.get("notes")
        if is_valid_tag(model) and isinstance(notes, list):
            out[model] = tuple(writable_text(n) for n in notes if isinstance(n, str))
    return out


def _cases(raw: Sequence[Mapping[str, Any]], rejected: list[RejectedInput]) -> tuple[CaseResult, ...]:
    cases = []
    for i, item in enumerate(raw):
        model, provider = item.get("model"), item.get("provider")
        if not is_valid_tag(model) or not is_valid_tag(provider):
            bad = provider if is_valid_tag(model) else model
            rejected.append(RejectedInput(_shown(model), _shown(provider), describe_invalid_tag(bad)))
            continue
        outcome = item.get("outcome")
        if not is_one_of(outcome, _OUTCOMES):
            rejected.append(RejectedInput(model, provider, f"cases[{i}]: unknown outcome {ascii(outcome)[:40]}"))
            continue
        rejected.extend(RejectedInput(model, provider, note) for note in _absurd_amounts(i, item))
        cases.append(CaseResult.from_entry(read_case(item)))
    return tuple(cases)


def _notes(raw: Sequence[Mapping[str, Any]], key: str, rejected: list[RejectedInput]) -> tuple[ControlNote, ...]:
    """The entries of `weak_probes` or `unprobed_controls`."""
    out = []
    for i, item in enumerate(raw):
        model, control = item.get("model"), item.get("control")
        if not (is_valid_tag(model) and is_valid_tag(control)):
            rejected.append(RejectedInput(_shown(model), _shown(control), f"{key}[{i}]: an unsafe tag", key))
            continue
        out.append(ControlNote(model, writable_text(item.get("contract", "")), control,
                               writable_text(item.get("reason", ""))))
    return tuple(out)


def read_code(raw: Mapping[str, Any]) -> str:
    """A case's or attempt's code as written; one that is missing (a schema_version 1 entry, written
    before codes) or not a code reads as its outcome's catch-all: counted, never a crash, and its
    reason is kept as the text a person reads."""
    written = raw.get("code")
    return written if isinstance(written, str) and CODE.fullmatch(written) else catch_all_code(str(raw.get("outcome")))


def _shown(value: Any) -> str:
    """A tag as it may be written to the audit log: itself when safe, else an escaped excerpt."""
    return value if is_valid_tag(value) else ascii(value)[:80]


def _absurd_amounts(i: int, item: Mapping[str, Any]) -> list[str]:
    """What `amount` leaves out of one case entry as no real bill, by field (a figure above MAX_BILL_USD)."""
    attempts = item.get("attempts")
    fields = [(f"cases[{i}].cost_usd", item.get("cost_usd"))] + [
        (f"cases[{i}].attempts[{n}].{key}", a.get(key))
        for n, a in enumerate(attempts if isinstance(attempts, list) else []) if isinstance(a, Mapping)
        for key in _AMOUNTS]
    # An int compares with a float exactly (no conversion, so no overflow); NaN compares false.
    return [f"{where} {short_figure(value)} is no real bill (above ${MAX_BILL_USD:g}): read as absent"
            for where, value in fields
            if isinstance(value, (int, float)) and not isinstance(value, bool) and value > MAX_BILL_USD]


def _items(raw: Any) -> dict[str, Check] | None:
    """A fidelity attempt's items: kind -> pass | fail; anything else is not an item (set aside)."""
    if not isinstance(raw, Mapping):
        return None
    return {writable_text(str(k)): cast(Check, v) for k, v in raw.items() if isinstance(v, str) and v in _CHECKS}
