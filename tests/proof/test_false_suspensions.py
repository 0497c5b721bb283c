"""A healthy but noisy fleet, round after round through the real commands: nobody is suspended.

The short version of benchmarks/false_suspensions.py (which plays a whole week, 336 rounds):
transport errors, too-short replies, a foreign catch-phrase and Markdown-led roleplay must
never add up to a failed round, let alone a (would-)suspension.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from false_suspensions import CONTRACTS, Week, play

# The module's fixture plays every round (a `pytest probes` and a `canary judge` subprocess each)
# inside the first test's time budget: ~100 s on a busy shared 2-core machine, too close to the
# suite's 120 s per test. The limit still catches a hang.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]
ROUNDS = 10
ENDPOINTS = 6


@pytest.fixture(scope="module")
def week(tmp_path_factory: pytest.TempPathFactory) -> Week:
    return play(Path(tmp_path_factory.mktemp("noisy")), rounds=ROUNDS, endpoints=ENDPOINTS, mode="observe")


def test_no_host_is_suspended_or_would_be(week: Week) -> None:
    assert week.rounds == ROUNDS
    assert week.bad == []


def test_no_case_fails_on_a_healthy_host(week: Week) -> None:
    assert week.failed_cases == []
    assert all(week.fp_rate(c) == 0 for c in CONTRACTS)


def test_the_noise_actually_happened(week: Week) -> None:
    # Otherwise the test would prove nothing: transport errors and inconclusive replies occurred.
    assert sum(week.outcomes[(c, "transport_error")] for c in CONTRACTS) > 0
    assert week.outcomes[("language", "inconclusive")] > 0
