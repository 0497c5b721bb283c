"""Compaction folds old days into day files without changing what the commands and charts say."""

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
from canary.history.query import History
from canary.history.rows import round_record
from canary.history.store import DETAIL_DAYS, compact, read_span, record_round
from core.results_read import read_results

DAYS = DETAIL_DAYS + 5
PER_DAY = 6
NEVER = 100 * 365  # a detail window no test reaches: nothing is compacted while recording
START = T0.replace(hour=0)  # whole UTC days
END = START + timedelta(days=DAYS)


def fill(root: Path) -> None:
    rng = random.Random(3)
    for n in range(DAYS * PER_DAY):
        at = START + n * timedelta(hours=24 / PER_DAY)
        spec = {p: {"structured": "fail" if rng.random() < 0.2 else "pass",
                    "language": rng.choice(["pass", "pass", "inconclusive", "fail"])} for p in PROVIDERS[:3]}
        doc = detailed(spec, at=at, providers=PROVIDERS[:3], ttft={p: rng.uniform(0.2, 4) for p in PROVIDERS[:3]},
                       languages={p: rng.choice(["pt", "ko", "es"]) for p in PROVIDERS[:3]})
        decisions = {"round_id": doc["round_id"], "mode": "observe", "decisions": [
            {"model": MODEL, "provider": PROVIDERS[0], "action": "would_suspend", "rule": "failed_streak",
             "reason": "r", "until": None, "rung": 1, "evidence": []}] if n % 17 == 0 else []}
        record_round(root, round_record(read_results(doc), record_of(decisions)), now=at, detail_days=NEVER)


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("history") / "history"
    fill(root)
    return root


def canary_history(root: Path, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    capsys.readouterr()
    assert main(["history", "--history", str(root), "--now", END.isoformat(), *args]) == 0
    return capsys.readouterr().out


def test_compaction_keeps_the_answers_of_canary_history(history: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "history"
    shutil.copytree(history, root)
    before = canary_history(root, capsys, "--json")
    table = canary_history(root, capsys)
    assert "compacted 5 day(s)" in canary_history(root, capsys, "compact")
    assert canary_history(root, capsys, "--json") == before and canary_history(root, capsys) == table
    assert json.loads(before)["endpoints"][0]["windows"]["30d"]["pass_rate"]["structured"]["fails"] > 0


def test_compaction_replaces_old_round_files_by_one_file_per_day(history: Path, tmp_path: Path) -> None:
    root = tmp_path / "history"
    shutil.copytree(history, root)
    done = compact(root, now=END)
    assert len(done) == DAYS - DETAIL_DAYS and len(list(root.glob("days/*/*.xz"))) == len(done)
    span = read_span(root)
    assert len(span.rounds) == DETAIL_DAYS * PER_DAY and sum(len(d.rounds) for d in span.days) == len(done) * PER_DAY
    assert compact(root, now=END) == ()  # nothing left to do
    first = next(iter(sorted(history.glob("rounds/*/*/*.xz"))))  # a round of a compacted day, recorded again
    from canary.history.store import read_round
    again = record_round(root, read_round(first), now=END)
    assert not again.written and not again.path.exists()


def test_daily_series_and_decisions_read_the_same_from_days_and_from_rounds(history: Path, tmp_path: Path) -> None:
    root = tmp_path / "history"
    shutil.copytree(history, root)
    before = History.open(root, now=END, days=DAYS + 1)
    compact(root, now=END, detail_days=3)
    after = History.open(root, now=END, days=DAYS + 1)
    for provider in PROVIDERS[:3]:
        series = after.daily_series()[(MODEL, provider)]
        assert series == before.daily_series()[(MODEL, provider)] and len(series) == DAYS
        assert sum(p.fails for p in series) > 0 and all(p.ttft_p50 is not None for p in series)
    assert after.latest_decisions(limit=1000, days=DAYS) == before.latest_decisions(limit=1000, days=DAYS)
    assert len(after.latest_decisions(limit=1000, days=DAYS)) == len(range(0, DAYS * PER_DAY, 17))
