"""judge/suspension/stats.py: the Wilson interval's closed form is scipy's."""

from __future__ import annotations

import pytest
from scipy import stats

from judge.suspension.stats import wilson_interval


@pytest.mark.parametrize("n", [1, 2, 5, 20, 49, 400, 2400, 100_000])
def test_the_wilson_interval_is_scipys(n: int) -> None:
    for k in sorted({0, 1, n // 3, n // 2, n - 1, n}):
        ci = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
        assert wilson_interval(k, n) == pytest.approx((max(0.0, ci.low), min(1.0, ci.high)), abs=1e-15)
