"""The decoded-rounds cache (canary/history/cache.py): the same answers, fewer files decoded."""

from __future__ import annotations

import json
import random
import shutil
from datetime import timedelta
from pathlib import Path

import pytest
from history_support import MODEL, PROVIDERS, T0, detailed
from summary_data import record_of

from canary.cli.main import main
from canary.history.cache import ENV, cache_file
from canary.history.query import History
from canary.history.rows import HistoryError, round_record
from canary.history.store import compact, record_round
from core.results import read_results

HALF_HOUR = timedelta(minutes=30)
ROUNDS = 40
NOW = T0 + ROUNDS * HALF_HOUR


def record(root: Path, i: int, rng: random.Random) -> None:
    at = T0 + i * HALF_HOUR
    spec = {p: {"structured": rng.choice(["pass", "fail", "transport_error"])} for p in PROVIDERS[:3]}
    doc = detailed(spec, at=at, providers=PROVIDERS[:3], ttft={p: rng.uniform(0.2, 5) for p in PROVIDERS[:3]})
    decisions = {"round_id": doc["round_id"], "mode": "observe", "decisions": [
        {"model": MODEL, "provider": PROVIDERS[0], "action": "would_suspend", "rule": "failed_streak",
         "reason": "r", "until": (at + timedelta(days=1)).isoformat(), "rung": 1, "evidence": []},
        {"model": MODEL, "provider": PROVIDERS[1], "action": "floor_held", "rule": "capacity_floor",
         "reason": "f", "until": None, "rung": None, "evidence": []}] if i % 7 == 0 else []}
    record_round(root, round_record(read_results(doc), record_of(decisions)), now=at, detail_days=10_000)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "history"
    rng = random.Random(5)
    for i in range(ROUNDS):
        record(root, i, rng)
    return root


def answers(h: History) -> tuple[object, ...]:
    return (h.summary(), h.current(10.0), h.daily_series_all(), h.latest_decisions(limit=1000, days=40),
            h.timelines(days=2), h.newest_round(), h.endpoints())


def test_a_cached_history_answers_as_the_files_do_and_decodes_nothing_the_second_time(root: Path,
                                                                                   tmp_path: Path) -> None:
    cold = History.open(root, now=NOW, days=40)
    first = History.open(root, now=NOW, days=40, cache=tmp_path / "cache")
    second = History.open(root, now=NOW, days=40, cache=tmp_path / "cache")
    assert first.loaded is not None and first.loaded.decoded == ROUNDS and first.loaded.hits == 0
    assert second.loaded is not None and second.loaded.decoded == 0 and second.loaded.hits == ROUNDS
    assert answers(first) == answers(cold) and answers(second) == answers(cold)


def test_a_new_round_is_the_only_file_decoded(root: Path, tmp_path: Path) -> None:
    History.open(root, now=NOW, days=40, cache=tmp_path / "cache")
    record(root, ROUNDS, random.Random(8))
    later = NOW + HALF_HOUR
    again = History.open(root, now=later, days=40, cache=tmp_path / "cache")
    assert again.loaded is not None and (again.loaded.decoded, again.loaded.hits) == (1, ROUNDS)
    assert answers(again) == answers(History.open(root, now=later, days=40))


def test_compaction_drops_the_cached_rows_of_the_files_it_removed(root: Path, tmp_path: Path) -> None:
    History.open(root, now=NOW, days=40, cache=tmp_path / "cache")
    assert compact(root, now=NOW, detail_days=0)
    cached = History.open(root, now=NOW, days=40, cache=tmp_path / "cache")
    assert answers(cached) == answers(History.open(root, now=NOW, days=40))
    assert cached.db.execute("SELECT COUNT(*) FROM day_groups").fetchone()[0] > 0
    import sqlite3
    kept = sqlite3.connect(cache_file(tmp_path / "cache", root)).execute("SELECT name FROM files").fetchall()
    assert sorted(n for (n,) in kept) == sorted(p.relative_to(root).as_posix() for p in root.rglob("*.xz"))


def test_a_shorter_span_takes_only_its_files_from_a_cache_that_holds_more(root: Path, tmp_path: Path) -> None:
    History.open(root, now=NOW, days=40, cache=tmp_path / "cache")
    short = History.open(root, now=NOW, days=0, cache=tmp_path / "cache")
    assert answers(short) == answers(History.open(root, now=NOW, days=0))
    assert short.db.execute("SELECT COUNT(DISTINCT day) FROM cases").fetchone()[0] == 1


def test_a_damaged_cache_is_rebuilt_not_believed(root: Path, tmp_path: Path) -> None:
    History.open(root, now=NOW, days=40, cache=tmp_path / "cache")
    path = cache_file(tmp_path / "cache", root)
    path.write_bytes(b"not a database at all" * 100)
    rebuilt = History.open(root, now=NOW, days=40, cache=tmp_path / "cache")
    assert rebuilt.loaded is not None and rebuilt.loaded.decoded == ROUNDS
    assert answers(rebuilt) == answers(History.open(root, now=NOW, days=40))


def test_a_damaged_history_file_is_still_named_with_the_cache(root: Path, tmp_path: Path) -> None:
    History.open(root, now=NOW, days=40, cache=tmp_path / "cache")
    victim = sorted(root.glob("rounds/*/*/*.xz"))[3]
    victim.write_bytes(b"garbage")
    with pytest.raises(HistoryError, match=victim.name):
        History.open(root, now=NOW, days=40, cache=tmp_path / "cache")


def test_canary_history_uses_the_cache_the_environment_names(root: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    args = ["history", "--history", str(root), "--now", NOW.isoformat(), "--json"]
    monkeypatch.delenv(ENV, raising=False)
    assert main(args) == 0
    plain = json.loads(capsys.readouterr().out)
    monkeypatch.setenv(ENV, str(tmp_path / "cache"))
    for _ in range(2):
        assert main(args) == 0
        assert json.loads(capsys.readouterr().out) == plain
    assert cache_file(tmp_path / "cache", root).exists()
    shutil.rmtree(tmp_path / "cache")
