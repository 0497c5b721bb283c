"""The records of one round: a Case to run, the Attempts it made, and the CaseResult it ended with.

A case's id (`<model>::<endpoint tag>::<contract>`) is core.vocabulary's `case_id()`: the format
and why it is so are described there. A model whose discovery failed is one case of its own kind,
a DiscoveryCase, with the id `<model>::discovery` (`discovery_case_id()`) and the pytest marker
`discovery`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from core.vocabulary import Outcome, case_id, discovery_case_id, endpoint_id
from probes.http.records import Endpoint

DISCOVERY_MARKER = "discovery"   # the pytest marker of a DiscoveryCase (`pytest probes -m discovery`)
EXCERPT_CHARS = 300


@dataclass(frozen=True, slots=True)
class Case:
    """One model x endpoint x contract to probe."""

    model: str
    contract: str
    endpoint: Endpoint
    language: str | None = None      # language contract only
    control: bool = False            # refusal case on a configured positive-control host

    @property
    def provider(self) -> str:
        return self.endpoint.tag

    @property
    def id(self) -> str:
        return case_id(self.model, self.provider, self.contract)

    @property
    def marker(self) -> str:
        return self.contract

    @property
    def group(self) -> str:
        """The scheduling unit: every case of one endpoint runs in one process (per-provider caps)."""
        return endpoint_id(self.model, self.provider)

    @property
    def title(self) -> str:
        """A readable title for Allure and the terminal ("aurora/fp8 · language (pt)")."""
        extra = f" ({self.language})" if self.language else " (control)" if self.control else ""
        return f"{self.provider} · {self.contract}{extra}"


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
class Attempt:
    """One request a case made, reduced to what the reports keep (plus what Allure attaches)."""

    outcome: Outcome
    reason: str
    ttft_s: float | None = None
    total_s: float = 0.0
    finish_reason: str | None = None
    classification: str = ""
    error_kind: str | None = None
    served_by: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    requests: int = 1                # HTTP requests it took: 2 when the first was lost before any byte
    refusal: str | None = None       # latency/language replies: "pass"/"fail", the reply checked for a refusal
    integrity: str | None = None     # every completed reply: "pass"/"fail" of judge/replies/integrity.py's check
    integrity_reason: str = ""       # the defect, when integrity failed
    text: str = ""                   # the full reply: Allure only, never results.json
    prompt: tuple[dict[str, Any], ...] = ()   # the messages sent: Allure only
    service_tier: str | None = None  # the tier the response reported (None: not reported)
    notes: tuple[str, ...] = ()      # wire facts recorded, not judged (ChatResult.notes)
    # Decode speed (judge/replies/decode_speed.py) and the endpoint's advertised throughput of
    # this round's discovery: the judge compares them with the peers' (judge/suspension/decode_speed.py).
    decode_tps: float | None = None
    advertised_p50_tps: float | None = None
    advertised_slowest_tps: float | None = None
    usage_reported: bool | None = None  # a completed stream: did it carry usage (None: not a completed stream)
    billed_usd: float | None = None  # usage.cost (None: not reported)
    listed_usd: float | None = None  # the same usage at the endpoint's listed prices (judge/replies/billing.py)
    items: tuple[tuple[str, bool], ...] = ()  # fidelity: (item kind, answered right) per item

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "outcome": self.outcome.value, "reason": self.reason, "ttft_s": _round(self.ttft_s),
            "total_s": _round(self.total_s), "finish_reason": self.finish_reason,
            "error_kind": self.error_kind, "served_by": self.served_by, "requests": self.requests,
            "excerpt": self.text[:EXCERPT_CHARS], "chars": len(self.text), "refusal": self.refusal,
            "integrity": self.integrity, "integrity_reason": self.integrity_reason or None,
        }
        # Written only when present, so results.json files of hosts without them read as before.
        if self.service_tier is not None:
            out["service_tier"] = self.service_tier
        if self.notes:
            out["notes"] = list(self.notes)
        for key in ("decode_tps", "advertised_p50_tps", "advertised_slowest_tps"):
            if (value := getattr(self, key)) is not None:
                out[key] = round(value, 2)
        if self.usage_reported is not None:
            out["usage_reported"] = self.usage_reported
        if self.usage_reported:
            out["prompt_tokens"] = self.prompt_tokens
        if self.billed_usd is not None and self.listed_usd is not None:
            out["billed_usd"], out["listed_usd"] = round(self.billed_usd, 10), round(self.listed_usd, 10)
        if self.items:
            out["items"] = {kind: Outcome.PASS.value if right else Outcome.FAIL.value for kind, right in self.items}
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class CaseResult:
    """How one case ended: exactly one Outcome, a reason a person can read, and every attempt."""

    case_id: str
    model: str
    provider: str
    contract: str
    outcome: Outcome
    reason: str
    language: str | None = None
    anomaly: bool = False
    control: bool = False
    duration_s: float = 0.0
    attempts: tuple[Attempt, ...] = ()
    auth_error: bool = False          # our key was refused: the round cannot be trusted
    raw_outcome: Outcome | None = None  # a control's own refusal verdict (fail = caught)

    @classmethod
    def for_case(cls, case: Case, outcome: Outcome, reason: str, **kw: Any) -> CaseResult:
        return cls(case_id=case.id, model=case.model, provider=case.provider, contract=case.contract,
                   outcome=outcome, reason=reason, language=case.language, control=case.control, **kw)

    @property
    def first(self) -> Attempt | None:
        return self.attempts[0] if self.attempts else None

    def to_json(self) -> dict[str, Any]:
        """The case entry of results.json (ARCHITECTURE.md), JSON-able so it can cross from xdist workers."""
        first = self.first
        return {
            "model": self.model, "provider": self.provider, "contract": self.contract,
            "outcome": self.outcome.value, "reason": self.reason, "language": self.language,
            "anomaly": self.anomaly, "control": self.control,
            "ttft_s": _round(first.ttft_s) if first else None,
            "duration_s": _round(self.duration_s), "requests": sum(a.requests for a in self.attempts),
            "prompt_tokens": sum(a.prompt_tokens for a in self.attempts),
            "completion_tokens": sum(a.completion_tokens for a in self.attempts),
            "cost_usd": round(sum(a.cost_usd for a in self.attempts), 8),
            "served_by": first.served_by if first else None,
            "attempts": [a.to_json() for a in self.attempts],
        }


@dataclass(frozen=True, slots=True)
class CaseRecord:
    """What the controller keeps of one case: the results.json entry and round-level flags."""

    case_id: str
    entry: dict[str, Any] = field(hash=False)
    auth_error: bool = False
    probed: bool = True               # False: pytest ended it without a probe result (timeout, crash)


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def result_to_wire(result: CaseResult) -> dict[str, Any]:
    """Every field of a CaseResult, JSON-able (control verdicts travel between processes)."""
    d = asdict(result)
    d["outcome"] = result.outcome.value
    d["raw_outcome"] = result.raw_outcome.value if result.raw_outcome else None
    for a in d["attempts"]:
        a["outcome"] = Outcome(a["outcome"]).value
    return d


def result_from_wire(d: dict[str, Any]) -> CaseResult:
    attempts = tuple(Attempt(**{**a, "outcome": Outcome(a["outcome"]), "prompt": tuple(a.get("prompt", ())),
                                "items": tuple((str(k), bool(r)) for k, r in a.get("items", ()))})
                     for a in d.get("attempts", ()))
    raw = d.get("raw_outcome")
    return CaseResult(**{**d, "outcome": Outcome(d["outcome"]), "attempts": attempts,
                         "raw_outcome": Outcome(raw) if raw else None})
