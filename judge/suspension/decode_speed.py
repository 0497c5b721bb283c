"""Decode speed against the peers and the endpoint's own advertised throughput (pure; docs/judge.md,
Decode speed against the peers): a slow endpoint's passing latency case fails, and each measured reply
is `decode` evidence.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from core.results import AttemptResult, CaseResult
from core.vocabulary import LATENCY, Outcome

DECODE = "decode"              # the window's evidence name (not a contract: no case of its own)
SLOW_FRACTION = 0.2
MIN_REPLIES = 2
MIN_PEERS = 2


class DecodeCode(StrEnum):
    """The code of a crawl against the peers (judge/replies/verdict.py)."""

    DECODE_SLOW = "decode_slow"


@dataclass(frozen=True, slots=True)
class Limits:
    """How slow one endpoint's reply must be to count as a crawl this round."""

    peers_median: float
    peers: int
    advertised_p50: float
    advertised_slowest: float

    @property
    def threshold(self) -> float:
        return min(SLOW_FRACTION * self.peers_median, SLOW_FRACTION * self.advertised_p50,
                   self.advertised_slowest)


def _measured(cases: Sequence[CaseResult], provider: str) -> list[AttemptResult]:
    return [a for c in cases if c.provider == provider and not c.control for a in c.attempts
            if a.decode_tps is not None]


def _speed(attempts: Sequence[AttemptResult]) -> float | None:
    values = [a.decode_tps for a in attempts if a.decode_tps is not None]
    return statistics.median(values) if len(values) >= MIN_REPLIES else None


def _advertised(attempts: Sequence[AttemptResult]) -> tuple[float, float] | None:
    for a in attempts:
        if a.advertised_p50_tps is not None and a.advertised_slowest_tps is not None:
            return a.advertised_p50_tps, a.advertised_slowest_tps
    return None


def limits(cases: Sequence[CaseResult]) -> dict[str, Limits]:
    """provider -> its thresholds this round (one model's cases), for those with enough peers and advertised figures."""
    providers = sorted({c.provider for c in cases if not c.control})
    measured = {p: _measured(cases, p) for p in providers}
    speeds = {p: s for p, a in measured.items() if (s := _speed(a)) is not None}
    # A peer whose latency case failed is set aside: over-reported tokens would make it look fast (issue 28).
    failing = {c.provider for c in cases if c.contract == LATENCY and not c.control and c.outcome == Outcome.FAIL}
    out = {}
    for p in providers:
        peers = [s for q, s in speeds.items() if q != p and q not in failing]
        advertised = _advertised(measured[p])
        if len(peers) >= MIN_PEERS and advertised is not None:
            out[p] = Limits(statistics.median(peers), len(peers), *advertised)
    return out


def decode_codes(cases: Sequence[CaseResult]) -> dict[str, str]:
    """provider -> this round's decode evidence codes ('f' slow reply, 'p' not), one model's cases."""
    out = {}
    for provider, lim in limits(cases).items():
        codes = "".join("f" if a.decode_tps is not None and a.decode_tps < lim.threshold else "p"
                        for a in _measured(cases, provider))
        if codes:
            out[provider] = codes
    return out


def judge_decode_speed(cases: Sequence[CaseResult]) -> tuple[CaseResult, ...]:
    """One model's cases of a round, each slow endpoint's passing latency case failed."""
    found = limits(cases)
    out = list(cases)
    for i, case in enumerate(cases):
        lim = found.get(case.provider)
        if lim is None or case.contract != LATENCY or case.control or case.outcome != Outcome.PASS:
            continue
        attempts = _measured(cases, case.provider)
        speed = _speed(attempts)
        if speed is None or speed >= lim.threshold:
            continue
        reason = (f"decode speed: {speed:.1f} tokens/s after the first token (median of {len(attempts)} replies), "
                  f"under {SLOW_FRACTION:g} of the other hosts' median {lim.peers_median:.0f} tokens/s "
                  f"({lim.peers} hosts) and below its own advertised throughput (p50 "
                  f"{lim.advertised_p50:.0f}, slowest percentile {lim.advertised_slowest:.0f} tokens/s); "
                  f"the probe's own verdict was: {case.reason}")
        out[i] = replace(case, outcome=Outcome.FAIL, code=DecodeCode.DECODE_SLOW, reason=reason)
    return tuple(out)
