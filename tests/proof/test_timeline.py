"""Weeks of rounds through the real commands: ladder, early restore, fade, floor, a flaky host.

The key rounds of benchmarks/timeline.py (13 `pytest probes` rounds, each judged by `canary
judge --now` at its place in a 19-day story); the script prints the same story, longer.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from timeline import BAD, FLAKY, PAIR_BAD, STORY, Step, check, play

# The module's fixture plays every round (a `pytest probes` and a `canary judge` subprocess each)
# inside the first test's time budget: ~100 s on a busy shared 2-core machine, too close to the
# suite's 120 s per test. The limit still catches a hang.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


@pytest.fixture(scope="module")
def story(tmp_path_factory: pytest.TempPathFactory) -> list[Step]:
    return play(Path(tmp_path_factory.mktemp("timeline")), per_day=0)


def test_every_expected_decision_happens_and_nothing_else(story: list[Step]) -> None:
    assert len(story) == len(STORY)
    assert check(story) == []


def test_the_ladder_climbs_1_3_7_days_then_fades_back_to_the_first_rung(story: list[Step]) -> None:
    rungs = [d["rung"] for s in story for d in s.decisions if d["action"] == "suspend" and d["provider"] == BAD]
    assert rungs == [1, 2, 3, 1]
    lengths = [s.suspended[BAD] for s in story if any(d["action"] == "suspend" for d in s.decisions)]
    assert [until for _, until in lengths] == ["2026-12-02T01:00:00Z", "2026-12-06T00:30:00Z",
                                               "2026-12-13T01:00:00Z", "2026-12-21T02:30:00Z"]


def test_the_flaky_host_is_noisy_but_never_suspended(story: list[Step]) -> None:
    flaky = "".join(s.outcomes[FLAKY] for s in story)
    assert "T" in flaky and "F" not in flaky
    assert all(FLAKY not in s.suspended for s in story)


def test_the_floor_holds_a_host_of_a_two_host_model(story: list[Step]) -> None:
    held = [s.round.number for s in story for d in s.decisions if d["action"] == "floor_held"]
    assert held and all(d["provider"] == PAIR_BAD for s in story for d in s.decisions if d["action"] == "floor_held")
    assert all(PAIR_BAD not in s.suspended for s in story)
