"""Host reliability against peers: streams cut after the first byte and 200s carrying an error (pure;
docs/judge.md, Host reliability against peers). `reliability_codes` makes the window's evidence,
`apply_reliability` the opt-in rule (rules.reliability). At p < 1e-4 the rule still suspended a healthy
host in ten weeks: a noisy peer set aside as failing made the others' rate look low.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from enum import StrEnum

from core.results import AttemptResult, CaseResult, RoundResults
from core.vocabulary import Outcome
from judge.suspension.card import Card
from judge.suspension.decisions import Evidence
from judge.suspension.round import ModelRound, RoundClass
from judge.suspension.window import FAIL, INCONCLUSIVE, PASS, TRANSPORT

RELIABILITY = "reliability"   # the window's evidence name (not a contract: no case of its own)
HOST_ERRORS = frozenset({"stream_cut", "mid_stream_error", "error_body_200"})
WIDE_FRACTION = 0.5
MIN_WIDE = 2
MIN_HOST_ERRORS = 3
RULE_ALPHA = 1e-6
RATE_RATIO = 2.0
PREFIX = "reliability: "


class ReliabilityCode(StrEnum):
    """The code of the reliability rule's evidence (judge/replies/verdict.py)."""

    HOST_UNRELIABLE = "host_unreliable"


def _code(a: AttemptResult) -> str:
    if a.outcome != Outcome.TRANSPORT_ERROR:
        return PASS
    return FAIL if a.error_kind in HOST_ERRORS else TRANSPORT


def _own(cases: Sequence[CaseResult]) -> dict[str, str]:
    """provider -> its request codes this round, before the wide errors are set apart."""
    out: dict[str, str] = {}
    for case in sorted(cases, key=lambda c: (c.provider, c.contract)):
        if case.control:
            continue
        codes = "".join(_code(a) for a in case.attempts)
        if codes:
            out[case.provider] = out.get(case.provider, "") + codes
    return out


def _wide(codes: Mapping[str, str]) -> bool:
    """Host errors on more than WIDE_FRACTION of these endpoints, at least MIN_WIDE of them."""
    hit = sum(FAIL in c for c in codes.values())
    return hit >= MIN_WIDE and hit > WIDE_FRACTION * len(codes)


def reliability_codes(report: RoundResults) -> dict[str, dict[str, str]]:
    """model -> provider -> this round's reliability codes, model-wide and upstream-wide host errors as `i`."""
    by_model: dict[str, list[CaseResult]] = {}
    for case in report.cases:
        by_model.setdefault(case.model, []).append(case)
    own = {model: _own(cases) for model, cases in sorted(by_model.items())}
    upstream_wide = _wide({f"{m} {p}": c for m, codes in own.items() for p, c in codes.items()})
    return {model: {p: c.replace(FAIL, INCONCLUSIVE) for p, c in codes.items()}
            if upstream_wide or _wide(codes) else codes for model, codes in own.items()}


def apply_reliability(rounds: Mapping[str, ModelRound], report: RoundResults,
                      card: Callable[[str, str], Card]) -> dict[str, ModelRound]:
    """The rounds with each significantly unreliable endpoint's round FAILED (rules.reliability).
    `card(model, provider)`: its reliability card from the state after this round was recorded."""
    codes = reliability_codes(report)
    out = dict(rounds)
    for model, mround in rounds.items():
        providers = dict(mround.providers)
        for provider, pr in mround.providers.items():
            if FAIL not in codes.get(model, {}).get(provider, ""):
                continue
            c = card(model, provider)
            if not _worse(c):
                continue
            evidence = Evidence(RELIABILITY, Outcome.FAIL,
                                f"{PREFIX}host errors (streams cut after the first byte, errors in a 200) "
                                f"significantly more often than its peers: {c.text}", ReliabilityCode.HOST_UNRELIABLE)
            providers[provider] = replace(pr, klass=RoundClass.FAILED, evidence=(*pr.evidence, evidence))
        out[model] = replace(mround, providers=providers)
    return out


def _worse(c: Card) -> bool:
    """The rule's test: enough host errors, RATE_RATIO times the peers' rate, p < RULE_ALPHA."""
    if c.p_value is None or c.failures < MIN_HOST_ERRORS or not c.attempts or not c.peer_attempts:
        return False
    rate, peers = c.failures / c.attempts, c.peer_failures / c.peer_attempts
    return c.p_value < RULE_ALPHA and rate >= RATE_RATIO * peers
