"""The Wilson interval of the cards and of `canary history` (judge/suspension/stats.py) against published values.

Reference intervals: R. G. Newcombe, "Two-sided confidence intervals for the single proportion:
comparison of seven methods", Statistics in Medicine 17 (1998), Table II (95 %, method 3).
"""

from __future__ import annotations

import pytest

from judge.suspension.stats import wilson_interval

NEWCOMBE = [  # k, n, Wilson (score, no continuity correction)
    (81, 263, (0.2553, 0.3662)),
    (15, 148, (0.0624, 0.1605)),
    (0, 20, (0.0, 0.1611)),
    (1, 29, (0.0061, 0.1718)),
]


@pytest.mark.parametrize("k,n,wilson", NEWCOMBE, ids=[f"{k}-of-{n}" for k, n, _ in NEWCOMBE])
def test_the_interval_matches_newcombes_table(k: int, n: int, wilson: tuple[float, float]) -> None:
    assert tuple(round(x, 4) for x in wilson_interval(k, n)) == wilson


def test_an_interval_is_symmetric_under_swapping_passes_and_failures() -> None:
    low, high = wilson_interval(3, 40)
    assert wilson_interval(37, 40) == pytest.approx((1 - high, 1 - low))


def test_no_trials_say_nothing_and_bad_counts_are_refused() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(5, 4)


@pytest.mark.parametrize("n", [1, 2, 5, 20, 49, 400, 2400, 100_000])
def test_the_wilson_interval_is_scipys(n: int) -> None:
    from scipy import stats

    for k in sorted({0, 1, n // 3, n // 2, n - 1, n}):
        ci = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
        assert wilson_interval(k, n) == pytest.approx((max(0.0, ci.low), min(1.0, ci.high)), abs=1e-15)
