"""Small factories for judge tests: results.json documents, rounds, and a timeline driver.

A provider's spec is an outcome for its `structured` case ("fail", "transport_error", ...),
or a dict {contract: outcome} for finer control; unnamed contracts pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from core.policy import ENFORCE, Policy
from core.production import SCHEMA, ProductionRecord, ReportCell, ServedCell
from core.results import RoundResults
from core.results_read import read_results
from judge.suspension.decisions import Action, Decision
from judge.suspension.exclusions import effective_ignore
from judge.suspension.maintenance import MaintenanceWindow
from judge.suspension.rules import apply_round
from judge.suspension.state import JudgeState

MODEL = "deepseek/deepseek-chat-v3-0324"
PROVIDERS = ("aurora/fp8", "borealis/bf16", "cirrus/fp8", "dune/fp16", "ember/fp8")
CONTRACTS = ("latency", "refusal", "structured", "language")
T0 = datetime(2026, 11, 29, 22, 0, tzinfo=UTC)
HALF_HOUR = timedelta(minutes=30)
DAY = timedelta(days=1)


def iso(t: datetime) -> str:
    return t.isoformat().replace("+00:00", "Z")


def case(provider: str, contract: str, outcome: str = "pass", *, model: str = MODEL, control: bool = False,
         language: str | None = None, anomaly: bool = False) -> dict[str, Any]:
    c: dict[str, Any] = {"model": model, "provider": provider, "contract": contract, "outcome": outcome,
                         "reason": f"{contract} {outcome}", "control": control}
    if contract == "language":
        c.update(language=language or "pt", anomaly=anomaly)
    return c


def results(spec: dict[str, Any] | None = None, *, at: datetime = T0, round_id: str | None = None,
            providers: tuple[str, ...] = PROVIDERS, model: str = MODEL, complete: bool = True,
            extra_cases: list[dict[str, Any]] | None = None, weak_probes: list[dict[str, Any]] | None = None,
            languages: dict[str, str] | None = None) -> dict[str, Any]:
    """A results.json document: every provider probed on every contract."""
    spec = spec or {}
    cases = []
    for p in providers:
        s = spec.get(p, {})
        per = s if isinstance(s, dict) else {"structured": s}
        for contract in CONTRACTS:
            if per.get(contract) == "missing":
                continue
            cases.append(case(p, contract, per.get(contract, "pass"), model=model,
                              language=(languages or {}).get(p)))
    return {
        "schema_version": 1, "round_id": round_id or f"r-{at:%Y%m%dT%H%M%S}-{model.split('/')[0]}",
        "started_at": iso(at), "finished_at": iso(at + timedelta(seconds=20)), "complete": complete,
        "incomplete_reason": None if complete else "discovery failed", "upstream": "openrouter",
        "models": {model: {"providers": list(providers)}}, "weak_probes": weak_probes or [],
        "cases": cases + (extra_cases or []),
    }


def served_record(end: datetime, served: dict[str | None, int], *, reports: dict[str, int] | None = None,
                  model: str = MODEL, exporter: str = "chat-eu-1", ambiguous: frozenset[str] = frozenset()
                  ) -> ProductionRecord:
    """A production record of the window ending at `end`: provider name -> sampled replies it served
    (None: the model's remainder), and provider name -> user reports."""
    return ProductionRecord(
        schema=SCHEMA, exporter=exporter, window_start=end - HALF_HOUR, window_end=end, sample_rate=0.05,
        served=tuple(ServedCell(model=model, provider=p, n=n, ambiguous=p in ambiguous)
                     for p, n in served.items() if n),
        reports=tuple(ReportCell(model=model, provider=p, n=n) for p, n in (reports or {}).items()))


def report(spec: dict[str, Any] | None = None, **kw: Any) -> RoundResults:
    return read_results(results(spec, **kw))


@dataclass
class Timeline:
    """Feeds rounds half an hour apart into apply_round, keeping state and decisions."""

    policy: Policy = field(default_factory=Policy)
    mode: str = ENFORCE
    providers: tuple[str, ...] = PROVIDERS
    excluded: dict[str, frozenset[str]] = field(default_factory=dict)
    state: JudgeState = field(default_factory=JudgeState)
    now: datetime = T0
    log: list[Decision] = field(default_factory=list)
    maintenance: tuple[MaintenanceWindow, ...] = ()

    def round(self, spec: dict[str, Any] | None = None, *, after: timedelta = HALF_HOUR, **kw: Any) -> list[Decision]:
        self.now += after
        kw.setdefault("providers", self.providers)
        self.state, decisions = apply_round(self.state, report(spec, at=self.now, **kw),
                                            replace(self.policy, mode=self.mode),
                                            now=self.now, excluded=self.excluded, maintenance=self.maintenance)
        self.log += decisions
        return decisions

    def rounds(self, n: int, spec: dict[str, Any] | None = None, **kw: Any) -> list[Decision]:
        out = []
        for _ in range(n):
            out += self.round(spec, **kw)
        return out

    def suspension(self, provider: str):  # type: ignore[no-untyped-def]
        return self.state.provider(MODEL, provider).suspension

    def ignore(self) -> list[str]:
        return effective_ignore(MODEL, (), self.state, self.now)


def actions(decisions: list[Decision], action: Action) -> list[Decision]:
    return [d for d in decisions if d.action is action]
