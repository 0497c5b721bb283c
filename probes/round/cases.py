"""The records of one round: a Case to run, and the ProbedCase it ended with.

A probe builds the round record's own types (core.results: a CaseResult with its AttemptResults,
by the same rules results.json is read by), so a case is one record from the contract that
judged it to results.json. What only the probing process uses travels beside the record,
never in the file: each attempt's AttemptExtras (the full reply and the prompt Allure attaches),
and the ProbedCase's flags (our key refused; a control's own verdict).

A case's id (`<model>::<endpoint tag>::<contract>`) is core.vocabulary's `case_id()`: the format
and why it is so are described there. A model whose discovery failed is one case of its own kind,
a DiscoveryCase, with the id `<model>::discovery` (`discovery_case_id()`) and the pytest marker
`discovery`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from core.field_rules import as_count, measurement, seconds, writable_text
from core.results import EXCERPT_CHARS, AttemptResult, CaseResult
from core.vocabulary import ContractName, Outcome, case_id, discovery_case_id, endpoint_id
from probes.http.records import Endpoint, ErrorKind


class TransportCode(StrEnum):
    """The codes of a request that produced nothing to judge (judge/replies/verdict.py): the client's
    ErrorKind value (probes/http/records.py) is the code, but for the two renamed here, and a
    transport error with no kind (a crashed probe, a case cut short) is `transport_other`."""

    ROUTING_MISMATCH = "routing_mismatch"   # ErrorKind.ROUTING: another host answered
    AUTH_REFUSED = "auth_refused"           # ErrorKind.AUTH: our key, not the host
    TRANSPORT_OTHER = "transport_other"


_RENAMED = {ErrorKind.ROUTING: TransportCode.ROUTING_MISMATCH, ErrorKind.AUTH: TransportCode.AUTH_REFUSED}


def transport_code(kind: ErrorKind | None) -> str:
    """The code of a transport error of this kind."""
    return TransportCode.TRANSPORT_OTHER if kind is None else _RENAMED.get(kind, kind.value)


DISCOVERY_MARKER = "discovery"   # the pytest marker of a DiscoveryCase (`pytest probes -m discovery`)


@dataclass(frozen=True, slots=True)
class Case:
    """One model x endpoint x contract to probe."""

    model: str
    contract: ContractName
    endpoint: Endpoint
    language: str | None = None      # language contract only
    control: bool = False            # refusal case on a configured positive-control host
    confirm: bool = False            # production evidence asked for it: run three times (CaseResult.confirmation)

    @property
    def provider(self) -> str:
        return self.endpoint.provider

    @property
    def id(self) -> str:
        return case_id(self.model, self.provider, self.contract)

    @property
    def marker(self) -> str:
        return self.contract.value  # a plain str: pytest's keywords cross to the xdist controller (execnet)

    @property
    def group(self) -> str:
        """The scheduling unit: every case of one endpoint runs in one process (per-provider caps)."""
        return endpoint_id(self.model, self.provider)

    @property
    def title(self) -> str:
        """A readable title for Allure and the terminal ("aurora/fp8 · language (pt)")."""
        extra = f" ({self.language})" if self.language else " (control)" if self.control else ""
        return f"{self.provider} · {self.contract}{extra}{' (confirmation)' if self.confirm else ''}"


@dataclass(frozen=True, slots=True)
class DiscoveryCase:
    """A model whose discovery failed: one case that ends the round incomplete (pytest: an error).

    It probes nothing and has no endpoint; it exists so the failure is a line of pytest's output,
    JUnit and Allure that no -k/-m can hide (probes/pytest_plugin/hooks.py keeps it selected).
    """

    model: str
    message: str                     # what went wrong
    auth_error: bool = False         # our key was refused

    @property
    def id(self) -> str:
        return discovery_case_id(self.model)

    @property
    def marker(self) -> str:
        return DISCOVERY_MARKER

    @property
    def group(self) -> str:
        return self.id

    @property
    def title(self) -> str:
        return f"{self.model} · discovery"


PlannedCase = Case | DiscoveryCase   # what a pytest item of `pytest probes` stands for


@dataclass(frozen=True, slots=True, kw_only=True)
class AttemptExtras:
    """What the reports show of one attempt beside its record (Allure's attachments): never results.json."""

    text: str = ""                   # the full reply (the record keeps its excerpt and length)
    prompt: tuple[dict[str, Any], ...] = ()   # the messages sent
    classification: str = ""         # the client's classification of the request
    prompt_tokens: int = 0           # as the upstream reported them (the record sums them per case)
    completion_tokens: int = 0
    cost_usd: float = 0.0            # at the endpoint's listed prices (summed per case)
    service_tier: str | None = None  # the tier the response reported (None: not reported)
    notes: tuple[str, ...] = ()      # wire facts recorded, not judged (ChatResult.notes)
    answers: tuple[tuple[str, bool], ...] = ()  # fidelity: (item kind, answered right) per item asked


@dataclass(frozen=True, slots=True)
class ProbedAttempt:
    """One request a case made: its record (an attempt of results.json) and its extras beside it."""

    record: AttemptResult
    extras: AttemptExtras

    @property
    def outcome(self) -> Outcome:
        return self.record.outcome

    @property
    def code(self) -> str:
        return self.record.code

    @property
    def reason(self) -> str:
        return self.record.reason

    @property
    def text(self) -> str:
        return self.extras.text

    def with_text(self, text: str) -> ProbedAttempt:
        """The reply as the reports show it; the record's excerpt and length follow it."""
        return ProbedAttempt(replace(self.record, excerpt=writable_text(text[:EXCERPT_CHARS]), chars=len(text)),
                             replace(self.extras, text=text))

    def with_answers(self, answers: Sequence[tuple[str, bool]]) -> ProbedAttempt:
        """A fidelity reply's answers: the record keeps each item kind's (the last of a kind asked twice)."""
        marks = {writable_text(kind): Outcome.PASS if right else Outcome.FAIL for kind, right in answers}
        return ProbedAttempt(replace(self.record, items=tuple(marks.items())),
                             replace(self.extras, answers=tuple(answers)))


@dataclass(frozen=True, slots=True, kw_only=True)
class ProbedCase:
    """How probing one case ended: its record (core.results.CaseResult, what results.json holds
    of it) and, beside it, what only the probing process uses."""

    record: CaseResult
    extras: tuple[AttemptExtras, ...] = ()  # one per record.attempts, in order
    auth_error: bool = False          # our key was refused: the round cannot be trusted
    raw_outcome: Outcome | None = None  # a control's own refusal verdict (fail = caught)

    @classmethod
    def of(cls, case: Case, outcome: Outcome, code: str, reason: str, *, attempts: Sequence[ProbedAttempt] = (),
           duration_s: float = 0.0, anomaly: bool = False, auth_error: bool = False) -> ProbedCase:
        """The case's record, its sums over the attempts, by the rules results.json is read by (a
        control's raw outcome is set by `restated`)."""
        first = attempts[0].record if attempts else None
        extras = tuple(a.extras for a in attempts)
        record = CaseResult(
            model=case.model, provider=case.provider, contract=case.contract, outcome=outcome,
            code=code, reason=writable_text(reason), language=case.language, anomaly=anomaly, control=case.control,
            ttft_s=first.ttft_s if first else None, duration_s=seconds(duration_s),
            requests=sum(a.record.requests for a in attempts),
            prompt_tokens=as_count(sum(e.prompt_tokens for e in extras), default=0) or 0,
            completion_tokens=as_count(sum(e.completion_tokens for e in extras), default=0) or 0,
            cost_usd=float(measurement(round(sum(e.cost_usd for e in extras), 8)) or 0.0),
            served_by=first.served_by if first else None, attempts=tuple(a.record for a in attempts))
        return cls(record=record, extras=extras, auth_error=auth_error)

    @property
    def case_id(self) -> str:
        return self.record.id

    @property
    def outcome(self) -> Outcome:
        return self.record.outcome

    @property
    def code(self) -> str:
        return self.record.code

    @property
    def reason(self) -> str:
        return self.record.reason

    @property
    def attempts(self) -> tuple[ProbedAttempt, ...]:
        return tuple(ProbedAttempt(r, e) for r, e in zip(self.record.attempts, self.extras, strict=True))

    def restated(self, outcome: Outcome, code: str, reason: str, **flags: Any) -> ProbedCase:
        """The same probe with another verdict (a control's, a weak probe's), its flags replaced as given."""
        return replace(self, record=replace(self.record, outcome=outcome, code=code, reason=writable_text(reason)),
                       **flags)


@dataclass(frozen=True, slots=True)
class CaseRecord:
    """What the round owner keeps of one case: its record and round-level flags."""

    case: CaseResult
    auth_error: bool = False
    probed: bool = True               # False: pytest ended it without a probe result (timeout, crash)

    @property
    def case_id(self) -> str:
        return self.case.id


def not_probed(case: Case, reason: str) -> CaseResult:
    """A case's record when it ended without a probe result: a transport error."""
    return ProbedCase.of(case, Outcome.TRANSPORT_ERROR, TransportCode.TRANSPORT_OTHER, reason).record
