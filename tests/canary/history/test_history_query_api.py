"""The typed query API the status page builds on (canary/history/query.py), on recorded rounds."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from history_support import MODEL, PROVIDERS, T0, detailed
from summary_data import record_of

from canary.history.query import History
from canary.history.rows import round_record
from canary.history.store import record_round
from canary.history.tiers import HealthTier
from core.results_read import read_results

HALF_HOUR = timedelta(minutes=30)
SLOW, FLAKY, BAD, GOOD = PROVIDERS[:4]
ROUNDS = 12
NOW = T0 + ROUNDS * HALF_HOUR


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> History:
    root = tmp_path_factory.mktemp("h") / "history"
    for i in range(ROUNDS):
        at = T0 + i * HALF_HOUR
        spec = {BAD: "fail" if i >= ROUNDS - 2 else "pass",
                FLAKY: {c: "transport_error" for c in ("latency", "refusal", "structured", "language")}
                if i >= ROUNDS - 3 else "pass"}
        doc = detailed(spec, at=at, ttft={SLOW: 6.0 + i / 10, GOOD: 0.5}, providers=PROVIDERS[:4],
                       languages={p: ("pt", "ko")[i % 2] for p in PROVIDERS[:4]})
        decisions = {"round_id": doc["round_id"], "mode": "enforce", "decisions": [
            {"model": MODEL, "provider": BAD, "action": "suspend", "rule": "failed_streak", "reason": "2 failed rounds",
             "until": (at + timedelta(days=1)).isoformat(), "rung": 1, "evidence": []}] if i == ROUNDS - 1 else []}
        record_round(root, round_record(read_results(doc), record_of(decisions)), now=at)
    return History.open(root, now=NOW)


def test_current_gives_each_endpoint_its_tier(history: History) -> None:
    tiers = {e.provider: e.tier.name for e in history.current(ttft_threshold_s=10.0)}
    assert tiers == {SLOW: HealthTier.DEGRADED, FLAKY: HealthTier.DEGRADED, BAD: HealthTier.SUSPENDED,
                     GOOD: HealthTier.HEALTHY}
    slow = next(e for e in history.current(10.0) if e.provider == SLOW)
    assert "slow" in slow.tier.reasons[0] and slow.last_class == "clean" and slow.last_round_at == NOW - HALF_HOUR


def test_a_failing_round_without_a_suspension_reads_failing(history: History) -> None:
    before = History(history.db, NOW - HALF_HOUR - timedelta(seconds=1))  # before the suspension was decided
    assert next(e for e in before.current(10.0) if e.provider == BAD).tier.name == HealthTier.FAILING


def test_the_timeline_has_one_point_per_round_with_codes(history: History) -> None:
    points = history.timelines(days=1)[(MODEL, BAD)]
    assert [p.klass for p in points] == ["clean"] * (ROUNDS - 2) + ["failed"] * 2
    assert points[-1].codes == ("structured:schema_violation",)


def test_ttft_series_has_exact_percentiles_per_bucket(history: History) -> None:
    series = history.ttft_series(days=1, bucket_hours=24)[(MODEL, SLOW)]
    [point] = series
    assert point.samples == ROUNDS and point.ttft_p50 == 6.5 and point.ttft_p95 == 7.1 and point.tps_p50 == 50.0


def test_language_grid_counts_each_provider_and_language(history: History) -> None:
    grid = {(c.provider, c.language): (c.passes, c.fails, c.other) for c in history.language_grid(MODEL, days=1)}
    assert grid[(GOOD, "pt")] == (ROUNDS // 2, 0, 0) and grid[(FLAKY, "ko")][2] >= 1


def test_latest_decisions_and_the_newest_round(history: History) -> None:
    [decision] = history.latest_decisions()
    assert (decision.provider, decision.action) == (BAD, "suspend")
    newest = history.newest_round()
    assert newest is not None and newest.at == NOW - HALF_HOUR and newest.mode == "enforce"
    assert history.active_suspensions()[(MODEL, BAD)] == "enforce"


def test_an_empty_history_answers_with_nothing(tmp_path: Path) -> None:
    empty = History.open(tmp_path / "none", now=NOW)
    assert empty.current(10.0) == () and empty.newest_round() is None and empty.summary() == ()


def test_percentiles_are_nearest_rank_whatever_the_order_of_the_rounds(tmp_path: Path) -> None:
    import random

    rng = random.Random(9)
    values = [round(rng.uniform(0.1, 9.9), 3) for _ in range(37)]  # in no particular order
    assert values != sorted(values) and len(set(values)) == len(values)
    root = tmp_path / "history"
    for i, v in enumerate(values):
        at = T0 + i * HALF_HOUR
        record_round(root, round_record(read_results(detailed(at=at, ttft={GOOD: v}, providers=(GOOD, BAD)))), now=at)
    history = History.open(root, now=T0 + len(values) * HALF_HOUR)
    [latency] = [x for x in history.latency((7,))[7] if x.provider == GOOD]
    ordered = sorted(values)
    assert latency.samples == len(values) and latency.ttft_p50 == ordered[18] and latency.ttft_p95 == ordered[35]
