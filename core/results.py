"""The round record, reports/results.json (schema_version 2): its records declared once as the file's form.

    RoundResults         one round (or the merge of its shards)
    ├── ModelEntry       a model's discovered tags, and discovery's limits and notes
    ├── CaseResult       one model x endpoint x contract case, with its AttemptResults
    ├── ControlNote      a weak probe (its positive control passed) or an unprobed control
    ├── Incomplete       why the round cannot be trusted (IncompleteKind + the words for people)
    └── usage            requests, tokens and cost per model and provider (ProviderUsage), derived

Each field is declared once (core/field_rules.py): in the order it is written, read by its type or
by the `ReadBy(rule)` beside it, SPARSE ones written only when set, UNWRITTEN ones (what reading set
aside, the judge's marks) never. A new measurement is one line.

Written once per round by the probes (`written(results)`), read by everyone through `read_results`
(the judge, `canary summary`, `canary probe`'s exit code, the history, incident excerpts), merged by
`merge_shards` (the workflow probes one model per job; the judge and the summary see one round).
Read two ways: the top level strictly by RoundResults' declaration (`read_document`: a document the
judge cannot trust is refused with ResultsError naming the key), each upstream entry in it on its
own and leniently (`read_case`, `lenient_entry`): a case (or a control note) whose model or provider
tag fails the safety pattern, or whose outcome or contract is unknown, is set aside as a RejectedInput (the
judge writes those to the audit log); an attempt that is not an object or has no known outcome is
left out; any other field whose value its declaration does not read reads as its default, so does
an amount of money no real reply has (above MAX_BILL_USD, with a RejectedInput naming it). Free
text is made writable as UTF-8 (lone surrogates from JSON become "?"). docs/file-formats.md tells
each rule.

Schema_version 2 added `code` to each case and attempt (judge/replies/verdict.py). A version 1 file
is still read: its entries read with their outcome's catch-all code (core/vocabulary.py
`catch_all_code`) and keep their reasons as text; nothing reads a reason's words. Optional,
additive fields (absent from older files) read with their defaults.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any, Final, Literal

import msgspec

from core.errors import InputError
from core.field_rules import (
    MAX_BILL_USD,
    MAX_COUNT,
    REQUIRED,
    SPARSE,
    UNWRITTEN,
    Amount,
    Derived,
    EachAlone,
    ReadBy,
    WriteAs,
    as_count,
    cost,
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
from core.times import stamp
from core.vocabulary import CODE, ContractName, Outcome, case_id, catch_all_code

SCHEMA_VERSION: Final = 2
# The versions read: 1 has no `code` (its entries read with their outcome's catch-all code).
ReadVersion = Literal[1, 2]
EXCERPT_CHARS = 300           # how much of each reply results.json keeps (the rest is in Allure)
_AMOUNTS = ("billed_usd", "listed_usd")
Clock = Literal["real", "virtual"]
REAL: Clock = "real"
VIRTUAL: Clock = "virtual"
_OUTCOMES = {o.value: o for o in Outcome}
_CONTRACTS = {c.value: c for c in ContractName}
_CHECKS = {Outcome.PASS.value: Outcome.PASS, Outcome.FAIL.value: Outcome.FAIL}
# A round id as results.json's declaration reads it (core/tags.py's pattern: core/tags.py itself
# ships with the backend's library, which has no msgspec).
RoundId = Annotated[str, msgspec.Meta(pattern=ROUND_ID_PATTERN.pattern,
                                      title="a round id (letters, digits and ._:+-, no '..', at most 1,024)")]
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


def _check(raw: Any) -> Outcome | None:
    """A check's outcome (refusal, integrity, a fidelity item): pass or fail, else none."""
    return _CHECKS.get(raw) if isinstance(raw, str) else None


def _items(raw: Any) -> tuple[tuple[str, Outcome], ...] | None:
    """A fidelity attempt's items: kind -> pass | fail; anything else is not an item (set aside)."""
    if not isinstance(raw, Mapping):
        return None
    return tuple((writable_text(str(k)), _CHECKS[v]) for k, v in raw.items() if isinstance(v, str) and v in _CHECKS)


def _null_when_empty(value: str) -> str | None:
    return value or None


@dataclass(frozen=True, slots=True, kw_only=True)
class AttemptResult:
    """One request of a case (two HTTP requests when the first was lost before any byte)."""

    outcome: Outcome  # this attempt's outcome
    code: str  # why, as a code (judge/replies/verdict.py): what history and the judge read
    reason: Annotated[str, ReadBy(writable_text)] = ""  # why, in words
    ttft_s: Annotated[float | None, ReadBy(measurement)] = None  # time to the first token
    total_s: Annotated[float | None, ReadBy(measurement)] = None  # time to the last byte
    finish_reason: Annotated[str | None, ReadBy(optional_text)] = None  # as the reply gave it
    error_kind: Annotated[str | None, ReadBy(optional_text)] = None  # the kind of a transport or upstream error
    served_by: Annotated[str | None, ReadBy(optional_text)] = None  # the provider that answered
    requests: Annotated[int, ReadBy(count)] = 1  # HTTP requests of this attempt (2: the first was lost before any byte)
    excerpt: Annotated[str, ReadBy(text)] = ""  # the first EXCERPT_CHARS characters of the reply
    chars: Annotated[int | None, ReadBy(count)] = None  # the reply's whole length (None: an older file)
    # latency/language replies: PASS or FAIL of the refusal check
    refusal: Annotated[Outcome | None, ReadBy(_check)] = None
    # every completed reply: PASS or FAIL of judge/replies/integrity.py's check
    integrity: Annotated[Outcome | None, ReadBy(_check)] = None
    # the defect, when integrity failed (else null)
    integrity_reason: Annotated[str, ReadBy(text), WriteAs(_null_when_empty)] = ""
    # Issue 22's decode speed: tokens/s after the first token (None: not measurable), and the
    # endpoint's advertised throughput (discovery's throughput_last_30m p50 and slowest percentile).
    decode_tps: Annotated[float | None, ReadBy(measurement), SPARSE] = None
    advertised_p50_tps: Annotated[float | None, ReadBy(measurement), SPARSE] = None
    advertised_slowest_tps: Annotated[float | None, ReadBy(measurement), SPARSE] = None
    # Billing honesty (issue 22), on completed streams only (None: not one, or an older file):
    usage_reported: Annotated[bool | None, SPARSE] = None  # the stream carried usage
    # its usage.prompt_tokens (judge/suspension/prompt_tokens.py)
    prompt_tokens: Annotated[int | None, ReadBy(count), SPARSE] = None
    billed_usd: Annotated[Amount | None, SPARSE] = None  # usage.cost, and the same usage at the listed prices
    listed_usd: Annotated[Amount | None, SPARSE] = None
    # fidelity: (item kind, PASS or FAIL) per item, in the order asked, written as {kind: outcome};
    # judge/suspension/fidelity.py sets INCONCLUSIVE on an item type no peer answered right (never written).
    items: Annotated[tuple[tuple[str, Outcome], ...], ReadBy(_items), WriteAs(dict), SPARSE] = ()
    # Not part of the file: set by judge/suspension/short_replies.py, far shorter than the peers' replies.
    short: Annotated[bool, UNWRITTEN] = False


@dataclass(frozen=True, slots=True, kw_only=True)
class CaseResult:
    """One model x endpoint x contract case of a round: its outcome, why, and what it cost."""

    model: str  # the model id
    provider: str  # the endpoint's provider tag
    contract: ContractName  # a contract's name (core/vocabulary.py DECLARED)
    outcome: Outcome  # pass | fail | inconclusive | transport_error | not_applicable
    code: str  # why, as a code (judge/replies/verdict.py): what history and the judge read
    reason: Annotated[str, ReadBy(writable_text)] = ""  # why, in words (upstream text, cleaned)
    language: Annotated[str | None, ReadBy(text)] = None  # the language contract only
    anomaly: bool = False          # the language contract: the first attempt failed (confirmations ran)
    control: bool = False          # a refusal case on a positive-control host (judges the probe)
    ttft_s: Annotated[float | None, ReadBy(measurement)] = None  # the first attempt's
    duration_s: Annotated[float | None, ReadBy(measurement)] = None  # the case's whole time
    requests: Annotated[int, ReadBy(count)] = 0  # HTTP requests the case made
    prompt_tokens: Annotated[int, ReadBy(count)] = 0  # as the upstream reported them
    completion_tokens: Annotated[int, ReadBy(count)] = 0  # as the upstream reported them
    cost_usd: Annotated[float, ReadBy(cost)] = 0.0  # as the upstream reported it
    # the provider that answered (OpenRouter's `provider` field)
    served_by: Annotated[str | None, ReadBy(optional_text)] = None
    attempts: tuple[AttemptResult, ...] = ()  # each request of the case, in order (a confirmation's: every run's)
    # A confirmation production evidence asked for (judge/suspension/production.py): the strict
    # majority of the contract's three runs (the outcome above is the first run's). None: not one.
    confirmation: Annotated[Outcome | None, SPARSE] = None

    @property
    def id(self) -> str:
        return case_id(self.model, self.provider, self.contract)


class ControlNote(msgspec.Struct, frozen=True):
    """A positive control that passed (`weak_probes`) or gave no verdict (`unprobed_controls`)."""

    model: str  # the model id
    contract: ContractName  # the probe's contract (refusal)
    control: str  # the control host's tag
    reason: str  # what the control did


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


def _limits(raw: Any) -> dict[str, tuple[int | None, int | None]] | None:
    """`models.M.limits` (tag -> [context_length, max_completion_tokens]): evidence for notes, read
    leniently (an unsafe tag or a figure that is not a count is left out)."""
    if not isinstance(raw, Mapping):
        return None
    return {t: (_listed(v[0]), _listed(v[1])) for t, v in raw.items()
            if is_valid_tag(t) and isinstance(v, list) and len(v) == 2}


def _listed(value: Any) -> int | None:
    listed = as_count(value, default=None)
    return listed if listed is not None and listed <= MAX_COUNT else None


def _notes(raw: Any) -> tuple[str, ...] | None:
    return tuple(writable_text(n) for n in raw if isinstance(n, str)) if isinstance(raw, list) else None


def _names(raw: Any) -> dict[str, str] | None:
    """`models.M.names` (tag -> provider name), read leniently: an unsafe tag or a name that is no
    identifier (core/production.py's pattern) is left out."""
    if not isinstance(raw, Mapping):
        return None
    return {t: n for t, n in raw.items() if is_valid_tag(t) and is_provider_name(n)}


@dataclass(frozen=True, slots=True)
class ModelEntry:
    """A model of `models`: its discovered tags, and discovery's limits, notes and names when it had any."""

    providers: tuple[str, ...] = ()  # its discovered tags, sorted (none: its discovery failed)
    # tag -> (context_length, max_completion_tokens) as discovery listed them (judge/replies/listing.py)
    limits: Annotated[Mapping[str, tuple[int | None, int | None]], ReadBy(_limits), SPARSE] = field(
        default_factory=dict)
    notes: Annotated[tuple[str, ...], ReadBy(_notes), SPARSE] = ()  # discovery's sanity notes on its listing
    # tag -> the provider's display name as discovery listed it, which is what replies name: production
    # records name providers so (judge/suspension/production.py)
    names: Annotated[Mapping[str, str], ReadBy(_names), SPARSE] = field(default_factory=dict)


def _incomplete(raw: Any) -> tuple[Incomplete, ...] | None:
    """`incomplete`'s reasons, read leniently: a kind no reader knows reads as `unknown`."""
    if not isinstance(raw, list):
        return None
    kinds = {k.value: k for k in IncompleteKind}
    return tuple(Incomplete(kinds.get(str(i.get("kind")), IncompleteKind.UNKNOWN), writable_text(i.get("detail", "")))
                 for i in raw if isinstance(i, Mapping)) or None


def _tag(raw: Any) -> str | None:
    return raw if is_valid_tag(raw) else None


def _virtual(raw: Any) -> Clock | None:
    return VIRTUAL if raw == VIRTUAL else None


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundResults:
    """One round: when, against what, every case, and whether it can be trusted."""

    # 2 (1 still reads: no codes, see below); another value is refused
    schema_version: Annotated[ReadVersion, REQUIRED] = SCHEMA_VERSION
    round_id: RoundId  # the round's id (merged shards: their ids, sorted, joined with "+")
    # when the round started (UTC, written to the whole second; a time without an offset reads as UTC)
    started_at: Annotated[datetime, WriteAs(stamp)]
    # when it finished (None: cut short before the end was written)
    finished_at: Annotated[datetime | None, WriteAs(stamp)] = None
    complete: Annotated[bool, REQUIRED] = True  # false: the round cannot be trusted and the judge changes no streak
    # why it is incomplete (empty when complete)
    incomplete: Annotated[tuple[Incomplete, ...], ReadBy(_incomplete)] = ()
    upstream: Annotated[str | None, ReadBy(_tag)] = None  # openrouter | simulator | custom; merged shards: "a+b"
    # virtual: a simulator round of `canary round` on its virtual clock
    clock: Annotated[Clock, ReadBy(_virtual)] = REAL
    controls_source: Annotated[str | None, ReadBy(text)] = None  # canary.yaml, or "simulator scenario <name>"
    # model -> its entry
    models: Annotated[Mapping[str, ModelEntry], EachAlone(), REQUIRED] = field(default_factory=dict)
    # refusal probes whose positive control passed (no evidence this round)
    weak_probes: Annotated[tuple[ControlNote, ...], EachAlone()] = ()
    unprobed_controls: Annotated[tuple[ControlNote, ...], EachAlone()] = ()  # positive controls that gave no verdict
    cases: Annotated[tuple[CaseResult, ...], EachAlone(), REQUIRED] = ()  # every model x endpoint x contract case
    # Not part of the file: what reading set aside, and (judge/suspension/planned.py) planned models without results.
    rejected: Annotated[tuple[RejectedInput, ...], UNWRITTEN] = ()
    missing: Annotated[Mapping[str, str], UNWRITTEN] = field(default_factory=dict)

    @property
    def incomplete_reason(self) -> Annotated[str | None, Derived(after="complete")]:
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

    def providers(self, model: str) -> tuple[str, ...]:
        """The model's discovered tags (none: not in `models`)."""
        entry = self.models.get(model)
        return entry.providers if entry else ()

    @property
    def usage(self) -> Annotated[dict[str, dict[str, ProviderUsage]], Derived()]:
        """Requests, tokens and cost per model and provider, summed over the cases."""
        totals: dict[str, dict[str, ProviderUsage]] = {}
        for c in self.cases:
            u = totals.setdefault(c.model, {}).get(c.provider, ProviderUsage())
            totals[c.model][c.provider] = ProviderUsage(
                u.requests + c.requests, u.prompt_tokens + c.prompt_tokens,
                u.completion_tokens + c.completion_tokens, round(u.cost_usd + c.cost_usd, 8))
        return totals


def read_results(raw: Any, source: str | None = None) -> RoundResults:
    """Decoded results.json data as a round: its top level read by RoundResults' declaration
    (`read_document`: what the judge decides on refuses the file, ResultsError naming the key and
    the file), each of its upstream entries on its own (see the module docstring for what is set aside)."""
    doc = read_document(raw, RoundResults, source=source, error=ResultsError)
    words = text(raw.get("incomplete_reason"))
    if not doc["complete"] and not doc["incomplete"] and words is not None:  # an older file: its words only
        doc["incomplete"] = (Incomplete(IncompleteKind.UNKNOWN, words),)
    rejected: list[RejectedInput] = []
    doc.update(models=_models(doc["models"], rejected, source), cases=_cases(doc["cases"], rejected),
               weak_probes=_control_notes(doc["weak_probes"], "weak_probes", rejected),
               unprobed_controls=_control_notes(doc["unprobed_controls"], "unprobed_controls", rejected))
    return RoundResults(**doc, rejected=tuple(rejected))


def read_case(item: Mapping[str, Any]) -> CaseResult:
    """A case entry whose tags and outcome are known good, every other field read leniently; an
    attempt that is not one is left out."""
    attempts = item.get("attempts")
    read = (read_attempt(raw) for raw in (attempts if isinstance(attempts, list) else []))
    return lenient_entry(item, CaseResult, model=str(item.get("model")), provider=str(item.get("provider")),
                         outcome=_OUTCOMES[str(item.get("outcome"))], code=read_code(item),
                         attempts=tuple(a for a in read if a is not None))


def read_attempt(raw: Any) -> AttemptResult | None:
    """An attempt entry read leniently, or None when it is not one (not an object, no known outcome)."""
    if not isinstance(raw, Mapping) or not is_one_of(raw.get("outcome"), _OUTCOMES):
        return None
    return lenient_entry(raw, AttemptResult, outcome=_OUTCOMES[raw["outcome"]], code=read_code(raw))


def read_code(raw: Mapping[str, Any]) -> str:
    """A case's or attempt's code as written; one that is missing (a schema_version 1 entry, written
    before codes) or not a code reads as its outcome's catch-all: counted, never a crash, and its
    reason is kept as the text a person reads."""
    written_code = raw.get("code")
    if isinstance(written_code, str) and CODE.fullmatch(written_code):
        return written_code
    return catch_all_code(str(raw.get("outcome")))


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


def _models(raw: Mapping[str, Mapping[str, Any]], rejected: list[RejectedInput],
            source: str | None) -> dict[str, ModelEntry]:
    models: dict[str, ModelEntry] = {}
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
        models[model] = lenient_entry(entry, ModelEntry, providers=tuple(sorted(set(good))))
    return models


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
        if not is_one_of(contract := item.get("contract"), _CONTRACTS):
            rejected.append(RejectedInput(model, provider, f"cases[{i}]: unknown contract {ascii(contract)[:40]}"))
            continue
        rejected.extend(RejectedInput(model, provider, note) for note in _absurd_amounts(i, item))
        cases.append(read_case(item))
    return tuple(cases)


def _control_notes(raw: Sequence[Mapping[str, Any]], key: str,
                   rejected: list[RejectedInput]) -> tuple[ControlNote, ...]:
    """The entries of `weak_probes` or `unprobed_controls`."""
    out = []
    for i, item in enumerate(raw):
        model, control, contract = item.get("model"), item.get("control"), item.get("contract")
        if not (is_valid_tag(model) and is_valid_tag(control) and is_one_of(contract, _CONTRACTS)):
            why = "an unknown contract" if is_valid_tag(model) and is_valid_tag(control) else "an unsafe tag"
            rejected.append(RejectedInput(_shown(model), _shown(control), f"{key}[{i}]: {why}", key))
            continue
        out.append(ControlNote(model, ContractName(str(contract)), control,
                               writable_text(item.get("reason", ""))))
    return tuple(out)


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
