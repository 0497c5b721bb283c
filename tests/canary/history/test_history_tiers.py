"""The display tier of an endpoint (canary/history/tiers.py): healthy, degraded, failing, suspended."""

from __future__ import annotations

import pytest

from canary.history.tiers import (
    MIN_SAMPLES,
    RISING_FACTOR,
    SLOW_FRACTION,
    UNSETTLED_ROUNDS,
    HealthTier,
    TierSignals,
    endpoint_tier,
)

THRESHOLD = 10.0
CLEAN = ("clean",) * 6


@pytest.mark.parametrize("signals,tier,why", [
    (TierSignals(CLEAN), HealthTier.HEALTHY, ""),
    (TierSignals(()), HealthTier.UNKNOWN, "no round"),
    (TierSignals(CLEAN, suspension_mode="enforce"), HealthTier.SUSPENDED, "suspended"),
    (TierSignals(CLEAN, suspension_mode="observe"), HealthTier.FAILING, "observe"),
    (TierSignals(("frozen", "failed", "clean")), HealthTier.FAILING, "newest counted round failed"),
    (TierSignals(("clean", "failed")), HealthTier.HEALTHY, ""),
    (TierSignals(CLEAN, ttft_p95_24h=SLOW_FRACTION * THRESHOLD + 0.1), HealthTier.DEGRADED, "slow"),
    (TierSignals(CLEAN, ttft_p95_24h=SLOW_FRACTION * THRESHOLD), HealthTier.HEALTHY, ""),
    (TierSignals(CLEAN, ttft_p50_6h=RISING_FACTOR * 0.5 + 0.01, samples_6h=MIN_SAMPLES, ttft_p50_7d=0.5,
                 samples_7d=100), HealthTier.DEGRADED, "rising"),
    (TierSignals(CLEAN, ttft_p50_6h=3.0, samples_6h=MIN_SAMPLES - 1, ttft_p50_7d=0.5, samples_7d=100),
     HealthTier.HEALTHY, ""),
    (TierSignals(("frozen",) * UNSETTLED_ROUNDS + ("clean",)), HealthTier.DEGRADED, "unsettled"),
    (TierSignals(("frozen",) * (UNSETTLED_ROUNDS - 1) + ("clean",)), HealthTier.HEALTHY, ""),
], ids=["healthy", "unknown", "suspended", "would-suspend", "failing", "recovered", "slow", "at-the-line",
        "rising", "too-few-samples", "unsettled", "two-frozen"])
def test_each_tier_and_why(signals: TierSignals, tier: str, why: str) -> None:
    got = endpoint_tier(signals, THRESHOLD)
    assert got.name == tier and why in " ".join(got.reasons)
