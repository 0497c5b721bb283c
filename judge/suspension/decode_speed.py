"""Decode speed against the peers and the endpoint's own advertised throughput (pure, issue 22).

Every completed stream with enough tokens carries its decode speed (judge/replies/decode_speed.py:
tokens per second after the first token, on the attempt as `decode_tps`), and the attempt carries
the endpoint's advertised throughput of the same round's discovery (`throughput_last_30m`: p50
and the slowest listed percentile). Per model and round:

- an endpoint's speed is the median of its measured replies, with at least MIN_REPLIES of them
  (every contract counts: the refusal and language replies are the long ones);
- the peers' reference is the median of the other endpoints' speeds (each one vote), with at
  least MIN_PEERS of them;
- the endpoint is *slow* when its speed is under SLOW_FRACTION of the peers' median AND under
  its own advertised throughput: under SLOW_FRACTION of its p50 and under its slowest listed
  percentile (OpenRouter measured 30 minutes of its real traffic). On the real listing the
  percentiles ascend (p50 35, p75 42, p90 47, p99 58 tokens/s: p99 is the *fastest*), so the
  slowest listed is p50 itself and SLOW_FRACTION of p50 is the bound that decides; the minimum is
  taken whatever the order (probes/http/discovery.py). Both, because hosts of one model differ honestly: a 50 tokens/s
  host next to 1,000 tokens/s ones is slow against its peers but not against what it
  advertises, and a host whose advertised figures are stale may be slow against them while its
  peers are no faster. An endpoint without advertised figures (null: too little traffic) is
  never slow: there is nothing of its own to fall short of.

Why a fifth: the defect is a crawl, tens of times below the peers (1-2 tokens/s against
140-270, maximhq/bifrost#6472); a healthy host's measured speed wanders by a factor of two
between rounds (network pace, batching, a loaded reader), and hosts of one model by a factor of
several. A fifth keeps a wide margin from both and still catches any crawl a user would notice.

A slow endpoint's latency case fails (the contract about waiting for text), naming the figures,
when it passed otherwise; the model-wide guard (judge/suspension/round.py) still discounts it if
most endpoints fail. `decode_codes` adds one code per measured reply to the window's `decode`
evidence (judge/suspension/evidence.py): `f` for a reply under both thresholds, `p` otherwise,
so the card shows the host's slow replies against its peers'.
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
    """provider -> its thresholds this round (one model's cases); providers without enough
    peers or without advertised figures are left out."""
    providers = sorted({c.provider for c in cases if not c.control})
    measured = {p: _measured(cases, p) for p in providers}
    speeds = {p: s for p, a in measured.items() if (s := _speed(a)) is not None}
    # A peer whose own latency case failed is set aside, as the evidence cards set aside peers failing
    # the contract themselves: its tokens/s rests on the completion tokens it reported, and a host
    # reporting 20x the tokens (limits, hidden tokens) would look 20x faster and make an honest
    # host look like a crawl beside it (the real-shapes fleet week, issue 28).
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
