"""The round record, reports/results.json (schema_version 2): its records declared once as the file's form.

    RoundResults         one round
    ├── ModelEntry       a model's discovered tags, and discovery's limits and notes
    ├── CaseResult       one model x endpoint x contract case, with its AttemptResults
    ├── ControlNote      a weak probe (its positive control passed) or an unprobed control
    ├── Incomplete       why the round cannot be trusted (IncompleteKind + the words for people)
    └── usage            requests, tokens and cost per model and provider (ProviderUsage), derived

Each field is declared once (core/field_rules.py): in the order it is written, read by its type or
by the `ReadBy(rule)` beside it, SPARSE ones written only when set, UNWRITTEN ones (what reading set
aside, the judge's marks) never. A new measurement is one line. Written once per round by the probes
(`written(results)`); read and merged by core/results_read.py.

Schema_version 2 added `code` to each case and attempt (judge/replies/verdict.py). A version 1 file
is still read: its entries read with their outcome's catch-all code (core/vocabulary.py
`catch_all_code`) and keep their reasons as text; nothing reads a reason's words. Optional,
additive fields (absent from older files) read with their defaults.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any, Final, Literal

import msgspec

from core.errors import InputError
from core.field_rules import (
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
    measurement,
    optional_text,
    text,
    writable_text,
)
from core.tags import ROUND_ID_PATTERN, is_provider_name, is_valid_tag
from core.times import stamp
from core.vocabulary import ContractName, Outcome, case_id

SCHEMA_VERSION: Final = 2
# The versions read: 1 has no `code` (its entries read with their outcome's catch-all code).
ReadVersion = Literal[1, 2]
EXCERPT_CHARS = 300           # how much of each reply results.json keeps (the rest is in Allure)
Clock = Literal["real", "virtual"]
REAL: Clock = "real"
VIRTUAL: Clock = "virtual"
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
    round_id: RoundId  # the round's id (an older merged round: its ids joined with "+")
    # when the round started (UTC, written to the whole second; a time without an offset reads as UTC)
    started_at: Annotated[datetime, WriteAs(stamp)]
    # when it finished (None: cut short before the end was written)
    finished_at: Annotated[datetime | None, WriteAs(stamp)] = None
    complete: Annotated[bool, REQUIRED] = True  # false: the round cannot be trusted and the judge changes no streak
    # why it is incomplete (empty when complete)
    incomplete: Annotated[tuple[Incomplete, ...], ReadBy(_incomplete)] = ()
    upstream: Annotated[str | None, ReadBy(_tag)] = None  # openrouter | simulator | custom (older merged rounds: "a+b")
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

