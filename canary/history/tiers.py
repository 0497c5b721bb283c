"""The health tier of an endpoint for people: healthy, degraded, failing, suspended, unknown (pure).

Display only: the rules never read it. When each holds: docs/history.md (tiers); "rising" needs at
least MIN_SAMPLES samples in each window.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum


class HealthTier(StrEnum):
    """An endpoint's tier for people, worst first."""

    SUSPENDED = "suspended"
    FAILING = "failing"
    DEGRADED = "degraded"
    HEALTHY = "healthy"
    UNKNOWN = "unknown"


SLOW_FRACTION = 0.5       # p95 above half the threshold: one bad tail away from latency failures
RISING_FACTOR = 2.0       # the typical first token takes twice as long as this week's norm
MIN_SAMPLES = 6           # fewer latency samples than this say nothing about a trend
UNSETTLED_ROUNDS = 3      # 1.5 hours without a verdict either way


@dataclass(frozen=True, slots=True)
class TierSignals:
    """What the tier is decided on, for one endpoint (newest round first)."""

    classes: Sequence[str]                  # round classes, newest first: failed | clean | frozen
    ttft_p95_24h: float | None = None
    ttft_p50_6h: float | None = None
    samples_6h: int = 0
    ttft_p50_7d: float | None = None
    samples_7d: int = 0
    suspension_mode: str | None = None      # "enforce" | "observe" when a suspension is active


@dataclass(frozen=True, slots=True)
class Tier:
    name: HealthTier
    reasons: tuple[str, ...] = ()


def endpoint_tier(s: TierSignals, ttft_threshold_s: float) -> Tier:
    """The tier of one endpoint and why (see the module docstring)."""
    if s.suspension_mode == "enforce":
        return Tier(HealthTier.SUSPENDED, ("suspended: excluded from provider.ignore's routes",))
    if s.suspension_mode is not None:
        return Tier(HealthTier.FAILING, ("would be suspended (observe mode)",))
    if not s.classes:
        return Tier(HealthTier.UNKNOWN, ("no round in the window",))
    counted = [c for c in s.classes if c not in ("frozen", "maintenance")]
    if counted and counted[0] == "failed":
        return Tier(HealthTier.FAILING, ("its newest counted round failed",))
    reasons = []
    if s.ttft_p95_24h is not None and s.ttft_p95_24h > SLOW_FRACTION * ttft_threshold_s:
        reasons.append(f"slow: TTFT p95 {s.ttft_p95_24h:.2f} s over 24 h "
                       f"(> {SLOW_FRACTION:.0%} of the {ttft_threshold_s:g} s threshold)")
    if (s.ttft_p50_6h is not None and s.ttft_p50_7d and s.samples_6h >= MIN_SAMPLES
            and s.samples_7d >= MIN_SAMPLES and s.ttft_p50_6h > RISING_FACTOR * s.ttft_p50_7d):
        reasons.append(f"rising: TTFT p50 {s.ttft_p50_6h:.2f} s over 6 h vs {s.ttft_p50_7d:.2f} s over 7 d")
    recent = list(s.classes[:UNSETTLED_ROUNDS])
    if len(recent) == UNSETTLED_ROUNDS and all(c == "frozen" for c in recent):
        reasons.append(f"unsettled: its last {UNSETTLED_ROUNDS} rounds were inconclusive or unreachable")
    return Tier(HealthTier.DEGRADED, tuple(reasons)) if reasons else Tier(HealthTier.HEALTHY)
