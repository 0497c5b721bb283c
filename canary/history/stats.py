"""Proportions with honest uncertainty, and percentiles (pure, standard library only).

Why no statistics package: the two intervals and the binomial test below are a dozen lines on
top of `statistics.NormalDist` and `math.lgamma`; scipy (with numpy, ~100 MB installed) or
statsmodels (scipy, numpy, pandas) would be the heaviest dependency of the project for them.
The values are checked against published tables (Newcombe 1998, Table I) in the tests. The
evidence cards that need a binomial test use `binomial_tail()` from here too.

- `wilson_interval(k, n)`: the Wilson score interval, the default for pass rates: it behaves at
  0 % and 100 % (where the textbook Wald interval collapses to a point) and at small n.
- `exact_interval(k, n)`: Clopper-Pearson, never below the nominal coverage (conservative).
- `binomial_tail(k, n, p)`: P(X >= k) for X ~ Binomial(n, p), the one-sided exact test
  ("is 19 failures in 20 replies more than a 5 % background rate explains?").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

CONFIDENCE = 0.95


def _z(confidence: float) -> float:
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def wilson_interval(k: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wilson score interval for k successes in n trials; (0.0, 1.0) when n is 0."""
    _check(k, n)
    if n == 0:
        return 0.0, 1.0
    z = _z(confidence)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def binomial_tail(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p): the exact one-sided p-value of seeing k or more."""
    _check(k, n)
    if k <= 0:
        return 1.0
    if p <= 0.0:
        return 0.0
    if p >= 1.0:
        return 1.0
    log_p, log_q = math.log(p), math.log1p(-p)
    terms = [_log_pmf(i, n, log_p, log_q) for i in range(k, n + 1)]
    top = max(terms)
    return min(1.0, math.exp(top) * sum(math.exp(t - top) for t in terms))


def _log_pmf(i: int, n: int, log_p: float, log_q: float) -> float:
    return math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * log_p + (n - i) * log_q


def exact_interval(k: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Clopper-Pearson interval: the p whose one-sided tails equal (1 - confidence) / 2."""
    _check(k, n)
    if n == 0:
        return 0.0, 1.0
    alpha = (1 - confidence) / 2
    # lower: the p with P(X >= k | p) = alpha (rises with p); upper: P(X <= k | p) = alpha (falls).
    low = 0.0 if k == 0 else _solve(lambda p: binomial_tail(k, n, p) - alpha)
    high = 1.0 if k == n else _solve(lambda p: alpha - (1 - binomial_tail(k + 1, n, p)))
    return low, high


def _solve(f: object) -> float:
    """The root in (0, 1) of an increasing function, by bisection (60 halvings: below 1e-15)."""
    assert callable(f)
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if f(mid) < 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile (0-100) by linear interpolation between ranks; None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    below = math.floor(pos)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (pos - below)


def _check(k: int, n: int) -> None:
    if n < 0 or k < 0 or k > n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")


__all__ = ["CONFIDENCE", "binomial_tail", "exact_interval", "percentile", "wilson_interval"]
