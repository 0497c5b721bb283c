"""Classify one round per (model, provider): failed, clean or frozen (pure).

- failed: any counted case is `fail`;
- clean:  every expected contract was probed and is `pass` or `not_applicable`, at least one `pass`;
- frozen: anything else (transport errors, inconclusive, missing contracts): streaks do not move.

Control cases (`control: true`) judge the probe, not the host: for the host they count as
`not_applicable` (so a control host can still have a clean round in its other contracts, and be
restored early) and they never enter the model-wide guard.
The expected contracts of a model are the contracts probed on any of its endpoints this round,
so an endpoint missing one of them is frozen rather than clean.

Before classifying, each model's cases go through PEER_CHECKS: the checks that judge an endpoint
against the other endpoints of its model this round (a reply far shorter than theirs, prose where
they called, far more prompt tokens, a crawl, wrong answers where they were right, corrupted
replies). Adding one is one entry: a pure function of one model's cases that returns them with the
ones it decides replaced, and the contracts whose cases it may change (judge/suspension/evidence.py
walks the same list for the evidence windows).

Model-wide guard: when a contract fails on more than `model_wide_guard.min_fraction` of the endpoints
probed for it (and at least `model_wide_guard.min_endpoints` were probed), the defect follows the model or
the probe, not the endpoints. Those failures count for nobody: the cases are treated as
inconclusive, so the affected providers are frozen for the round (no streak moves either way).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from core.policy import Policy
from core.results import CaseResult, RoundResults
from core.vocabulary import CONTRACTS, FIDELITY, LANGUAGE, LATENCY, REFUSAL, TOOLS, ContractName, Outcome
from judge.replies.integrity import INTEGRITY_CONTRACT, judge_integrity
from judge.replies.verdict import Common
from judge.suspension.decisions import Evidence
from judge.suspension.decode_speed import judge_decode_speed
from judge.suspension.fidelity import judge_fidelity
from judge.suspension.prompt_tokens import LEFT_OUT, judge_prompt_tokens
from judge.suspension.short_replies import judge_short_replies
from judge.suspension.tool_prose import judge_tool_prose

DISCOUNTED_PREFIX = "model-wide, not counted: "


@dataclass(frozen=True, slots=True)
class PeerCheck:
    """One check of an endpoint against its model's other endpoints this round: `judge` takes one
    model's cases and returns them, those it decides replaced; it changes only cases of `contracts`."""

    name: str
    judge: Callable[[Sequence[CaseResult]], tuple[CaseResult, ...]]
    contracts: frozenset[ContractName]


# Walked in this order: a check after another sees its verdicts (most fail only a case that passed).
PEER_CHECKS: tuple[PeerCheck, ...] = (
    PeerCheck("short replies", judge_short_replies, frozenset({REFUSAL})),
    PeerCheck("reply integrity", judge_integrity, frozenset({INTEGRITY_CONTRACT})),
    PeerCheck("tool prose", judge_tool_prose, frozenset({TOOLS})),
    PeerCheck("prompt tokens", judge_prompt_tokens, frozenset(CONTRACTS) - frozenset(LEFT_OUT)),
    PeerCheck("decode speed", judge_decode_speed, frozenset({LATENCY})),
    PeerCheck("peer fidelity", judge_fidelity, frozenset({FIDELITY})),
)


def judge_peers(cases: Sequence[CaseResult], checks: Sequence[PeerCheck] = PEER_CHECKS) -> tuple[CaseResult, ...]:
    """One model's cases of a round after every peer check (a check with no case of its contracts is skipped)."""
    judged = tuple(cases)
    for check in checks:
        if any(c.contract in check.contracts for c in judged):
            judged = check.judge(judged)
    return judged


class RoundClass(StrEnum):
    FAILED = "failed"
    CLEAN = "clean"
    FROZEN = "frozen"


@dataclass(frozen=True, slots=True)
class ProviderRound:
    """One endpoint's round: its class, the evidence, and its language case if any."""

    provider: str
    klass: RoundClass
    evidence: tuple[Evidence, ...]
    language_case: CaseResult | None = None
    # Contracts whose failure the model-wide guard discounted: their evidence keeps the case's
    # `fail` (a person reads what the host answered), but the failure counts for nobody.
    discounted: tuple[str, ...] = ()

    def failed(self) -> tuple[str, ...]:
        """The contracts whose failure counts this round (the model-wide guard's discounted ones left out)."""
        return tuple(sorted({e.contract for e in self.evidence if e.outcome == Outcome.FAIL} - set(self.discounted)))

    def passed(self) -> frozenset[str]:
        """The contracts every case of which passed this round."""
        contracts = {e.contract for e in self.evidence}
        return frozenset(c for c in contracts
                         if all(e.outcome == Outcome.PASS for e in self.evidence if e.contract == c))

    def problems(self) -> tuple[Evidence, ...]:
        """The evidence that is not a plain pass (what a person wants to read first)."""
        return tuple(e for e in self.evidence if e.outcome not in (Outcome.PASS, Outcome.NOT_APPLICABLE))


@dataclass(frozen=True, slots=True)
class GuardHit:
    """A contract that failed on most of a model's endpoints this round."""

    contract: ContractName
    failing: tuple[str, ...]
    probed: int


@dataclass(frozen=True, slots=True)
class ModelRound:
    model: str
    discovered: tuple[str, ...]
    providers: Mapping[str, ProviderRound]
    guard_hits: tuple[GuardHit, ...] = ()


def classify_round(report: RoundResults, policy: Policy) -> dict[str, ModelRound]:
    """Every model of the round, each provider classified."""
    by_model: dict[str, list[CaseResult]] = {}
    for case in report.cases:
        if case.control:
            case = dataclasses.replace(case, outcome=Outcome.NOT_APPLICABLE, code=Common.NOT_APPLICABLE,
                                       reason=f"positive control (judges the probe): {case.reason}")
        by_model.setdefault(case.model, []).append(case)
    result = {}
    for model in sorted(set(report.models) | set(by_model)):
        cases = judge_peers(by_model.get(model, []))
        hits = _guard_hits([c for c in cases if not c.control], policy)
        discounted = {(p, h.contract) for h in hits for p in h.failing}
        expected = {c.contract for c in cases}
        providers = sorted(set(report.providers(model)) | {c.provider for c in cases})
        rounds = {p: _classify_provider(p, [c for c in cases if c.provider == p], expected, discounted)
                  for p in providers}
        result[model] = ModelRound(model, report.providers(model), rounds, hits)
    return result


def _guard_hits(cases: list[CaseResult], policy: Policy) -> tuple[GuardHit, ...]:
    guard = policy.model_wide_guard
    if not guard.enabled:
        return ()
    hits = []
    for contract in sorted({c.contract for c in cases}):
        probed = {c.provider for c in cases if c.contract == contract}
        failing = sorted({c.provider for c in cases if c.contract == contract and c.outcome == Outcome.FAIL})
        if len(probed) >= guard.min_endpoints and len(failing) > guard.min_fraction * len(probed):
            hits.append(GuardHit(contract, tuple(failing), len(probed)))
    return tuple(hits)


def _classify_provider(provider: str, cases: list[CaseResult], expected: set[ContractName],
                       discounted: set[tuple[str, ContractName]]) -> ProviderRound:
    evidence = []
    outcomes = []
    discounted_here = []
    for case in sorted(cases, key=lambda c: c.contract):
        outcome = case.outcome
        reason = case.reason
        if outcome == Outcome.FAIL and (provider, case.contract) in discounted:
            outcome = Outcome.INCONCLUSIVE  # the failure counts for nobody this round
            reason = DISCOUNTED_PREFIX + reason
            discounted_here.append(case.contract)
        outcomes.append(outcome)
        evidence.append(Evidence(case.contract, case.outcome, reason, case.code))
    probed = {c.contract for c in cases}
    if Outcome.FAIL in outcomes:
        klass = RoundClass.FAILED
    elif (probed >= expected and Outcome.PASS in outcomes
          and all(o in (Outcome.PASS, Outcome.NOT_APPLICABLE) for o in outcomes)):
        klass = RoundClass.CLEAN
    else:
        klass = RoundClass.FROZEN
    language = next((c for c in cases if c.contract == LANGUAGE), None)
    return ProviderRound(provider, klass, tuple(evidence), language, tuple(sorted(set(discounted_here))))
