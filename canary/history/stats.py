"""Proportions with honest uncertainty, and percentiles (pure).

The intervals and the binomial test are judge.suspension.stats' (scipy.stats: one maintained statistics
library for the history and the judge's evidence cards alike); only the percentile, a plain
interpolation between ranks, is computed here. Checked against published tables (Newcombe
1998) in the tests.

- `wilson_interval(k, n)`: the Wilson score interval, the default for pass rates: it behaves at
  0 % and 100 % (where the textbook Wald interval collapses to a point) and at small n.
- `exact_interval(k, n)`: Clopper-Pearson, never below the nominal coverage (conservative).
- `binomial_tail(k, n, p)`: P(X >= k) for X ~ Binomial(n, p), the one-sided exact test
  ("is 19 failures in 20 replies more than a 5 % background rate explains?").
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from judge.suspension.stats import CONFIDENCE, binomial_tail, exact_interval, wilson_interval


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile (0-100) by linear interpolation between ranks; None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    below = math.floor(pos)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (pos - below)


__all__ = ["CONFIDENCE", "binomial_tail", "exact_interval", "percentile", "wilson_interval"]
