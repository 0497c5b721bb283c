"""Intervals, the binomial tail and percentiles (canary/history/stats.py) against published values.

Reference intervals: R. G. Newcombe, "Two-sided confidence intervals for the single proportion:
comparison of seven methods", Statistics in Medicine 17 (1998), Table II (95 %, methods 3 and 5).
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from canary.history.stats import binomial_tail, exact_interval, percentile, wilson_interval

NEWCOMBE = [  # k, n, Wilson (score, no continuity correction), Clopper-Pearson (exact)
    (81, 263, (0.2553, 0.3662), (0.2527, 0.3676)),
    (15, 148, (0.0624, 0.1605), (0.0578, 0.1617)),
    (0, 20, (0.0, 0.1611), (0.0, 0.1684)),
    (1, 29, (0.0061, 0.1718), (0.0009, 0.1776)),
]


@pytest.mark.parametrize("k,n,wilson,exact", NEWCOMBE, ids=[f"{k}-of-{n}" for k, n, _, _ in NEWCOMBE])
def test_intervals_match_newcombes_table(k: int, n: int, wilson: tuple[float, float],
                                         exact: tuple[float, float]) -> None:
    assert tuple(round(x, 4) for x in wilson_interval(k, n)) == wilson
    assert tuple(round(x, 4) for x in exact_interval(k, n)) == exact


def test_an_interval_is_symmetric_under_swapping_passes_and_failures() -> None:
    low, high = wilson_interval(3, 40)
    assert wilson_interval(37, 40) == pytest.approx((1 - high, 1 - low))
    e_low, e_high = exact_interval(3, 40)
    assert exact_interval(37, 40) == pytest.approx((1 - e_high, 1 - e_low), abs=1e-12)


def test_no_trials_say_nothing_and_bad_counts_are_refused() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0) == exact_interval(0, 0)
    with pytest.raises(ValueError):
        wilson_interval(5, 4)


def test_the_binomial_tail_is_the_exact_sum() -> None:
    # P(X >= 2) for Binomial(3, 1/2) = 4/8; P(X >= 19) for Binomial(20, 0.05) = 20*0.05^19*0.95 + 0.05^20
    assert binomial_tail(2, 3, 0.5) == pytest.approx(0.5)
    assert binomial_tail(19, 20, 0.05) == pytest.approx(20 * 0.05**19 * 0.95 + 0.05**20)
    assert binomial_tail(0, 10, 0.3) == 1.0 and binomial_tail(1, 10, 0.0) == 0.0
    assert math.isclose(binomial_tail(700, 1400, 0.5), float(Fraction(1, 2) + Fraction(math.comb(1400, 700), 2**1401)),
                        rel_tol=1e-9)


def test_percentiles_interpolate_between_ranks() -> None:
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.5
    assert percentile([5.0], 95) == 5.0 and percentile([], 50) is None
