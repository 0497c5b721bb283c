"""Host reliability against peers: streams cut after the first byte and 200s carrying an error (pure, issue 22).

Transport errors freeze a host's streaks (docs/system.md: the canary doubts itself): a request
that failed says nothing about the host's quality, and it may be ours or OpenRouter's. So a host
that cuts 30 % of its streams after the first byte, or answers `200` with an error body, is never
suspended by the streak rules. That default stays. What this module adds is the evidence:

- `reliability_codes` reads one round: per endpoint, one code per request of its cases
  (positive controls left out: they judge the probe): `f` for a *host error*, a failure that
  can only come from the host's side of an open connection (HOST_ERRORS: the stream cut after
  it began, an error object inside the stream, an HTTP 200 whose body is an error), `p` for a
  request the host answered (whatever the verdict), `t` for any other transport error (connect
  errors, timeouts, 429, 5xx: kept apart, as the cards keep every transport error apart);
- model-wide and upstream-wide errors never count against one host: when host errors hit more
  than half of a model's probed endpoints this round (at least two of them), the model or its
  upstream is failing, not a host, and when they hit more than half of the round's endpoints
  (at least MIN_WIDE of them) OpenRouter itself is; those errors are recorded `i` (kept apart);
- the codes go into each endpoint's evidence window under `reliability`
  (judge/suspension/evidence.py), so the card reads "reliability: 6/40 failed (...) vs peers
  1/200 (...), p = ..." with the same Fisher test as every card.

`rules.reliability` (off by default) makes it a rule: `apply_reliability` turns an endpoint's
round FAILED when the round has a counted host error of its own, its window holds at least
MIN_HOST_ERRORS host errors at RATE_RATIO times its peers' rate or more, and its reliability card's
Fisher p-value (the cards' test, judge/suspension/card.py) is under RULE_ALPHA. Two such rounds
suspend it like any failed rounds. A round without a host error of its own is judged as before
(a host that stopped cutting streams recovers).

Why RULE_ALPHA is far stricter than the cards' 0.05: the card is read by a person once, the rule
is asked every round of every host whose round had a host error. Healthy hosts cut 3-6 % of their
streams (benchmarks/reliability_rule.py: 6 healthy hosts at 6 % through the real rules for a
week): at p < 0.05 the rule suspended 1-3 healthy hosts a week (3 seeds), at p < 1e-4 one in ten
weeks (a noisy peer set aside as failing makes the others' rate look low), at 1e-5 and 1e-6 none
in ten, while a host cutting 30 % of its streams was still suspended within 20 and 23 rounds.
1e-6: the margin.
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
    """model -> provider -> this round's reliability codes (module docstring)."""
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
    """The rule's test (module docstring): enough host errors, twice the peers' rate, p < RULE_ALPHA."""
    if c.p_value is None or c.failures < MIN_HOST_ERRORS or not c.attempts or not c.peer_attempts:
        return False
    rate, peers = c.failures / c.attempts, c.peer_failures / c.peer_attempts
    return c.p_value < RULE_ALPHA and rate >= RATE_RATIO * peers
