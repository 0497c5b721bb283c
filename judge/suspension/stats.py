"""Proportions with honest uncertainty and exact tests, from scipy.stats (docs/judge.md says why Wilson
and Fisher). Pure functions of counts. scipy is imported on first use (~0.7 s), so the probes and the
chat backend, which import judge/, never pay for it. `wilson_interval` is the closed form of scipy's
`binomtest(k, n).proportion_ci(method="wilson")` to 1e-15 (tests/judge/suspension/test_stats.py),
without the two-sided test binomtest also computes: 1 ms a card (benchmarks/production_evidence.py).
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import Any

CONFIDENCE = 0.95


def _stats() -> Any:
    from scipy import stats  # lazy: see the module docstring

    return stats


def _check(k: int, n: int) -> None:
    if n < 0 or k < 0 or k > n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")


def wilson_interval(k: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wilson score interval for k successes in n trials; (0.0, 1.0) when n is 0."""
    _check(k, n)
    if n == 0:
        return 0.0, 1.0
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    scale = n + z * z
    centre = (k + z * z / 2) / scale
    half = z * math.sqrt(k * (n - k) / n + z * z / 4) / scale
    return max(0.0, centre - half), min(1.0, centre + half)


def fisher_greater(k1: int, n1: int, k2: int, n2: int) -> float:
    """One-sided Fisher exact p-value that k1/n1 is a higher rate than k2/n2 (1.0 if either n is 0)."""
    _check(k1, n1)
    _check(k2, n2)
    if n1 == 0 or n2 == 0:
        return 1.0
    table = [[k1, n1 - k1], [k2, n2 - k2]]
    return float(_stats().fisher_exact(table, alternative="greater").pvalue)


__all__ = ["CONFIDENCE", "fisher_greater", "wilson_interval"]
