"""`canary judge` records each round; `canary history` answers from it; failures never block judging."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from history_support import MODEL, PROVIDERS, T0, detailed
from judge_cli_support import HALF_HOUR, Files, files_in, iso

from canary.history.store import day_path
from judge.suspension.stats import wilson_interval

BAD = PROVIDERS[0]
DAY = 48 * HALF_HOUR


@pytest.fixture
def f(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Files:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.delenv("CANARY_WEBHOOK_URL", raising=False)
    return files_in(tmp_path, capsys)


def judge(f: Files, name: str, doc: dict[str, object], now: str) -> tuple[int, str, str]:
    path = f.root / "reports" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc), encoding="utf-8")
    return f.canary("judge", str(path), "--now", now)


def history_files(f: Files) -> dict[str, bytes]:
    root = f.state.parent / "history"
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def history_json(f: Files, now: str, *extra: str) -> dict[str, object]:
    code, out, err = f.canary("history", "--json", "--now", now, *extra)
    assert code == 0, err
    return dict(json.loads(out))


def test_the_judge_records_each_round_next_to_its_state(f: Files) -> None:
    for i in range(3):
        at = T0 + i * HALF_HOUR
        assert judge(f, f"r{i}.json", detailed({BAD: "fail"} if i < 2 else None, at=at), iso(at))[0] == 0
    files = history_files(f)
    assert len(files) == 3 and all(name.startswith("rounds/2026-11/29/") for name in files)
    doc = history_json(f, iso(T0 + 3 * HALF_HOUR))
    bad = next(e for e in doc["endpoints"] if e["provider"] == BAD)  # type: ignore[union-attr, index]
    day = bad["windows"]["24h"]
    assert day["pass_rate"]["structured"]["passes"] == 1 and day["pass_rate"]["structured"]["fails"] == 2
    assert day["pass_rate"]["latency"]["rate"] == 1.0 and day["suspensions"] == 1


def test_recording_the_same_round_again_changes_nothing(f: Files) -> None:
    doc = detailed({BAD: "fail"})
    judge(f, "r.json", doc, iso(T0))
    before = history_files(f)
    code, out, _ = f.canary("history", "record", str(f.root / "reports" / "r.json"), "--decisions", str(f.decisions),
                            "--now", iso(T0))
    assert code == 0 and "already recorded" in out and history_files(f) == before
    assert judge(f, "r.json", doc, iso(T0))[0] == 0 and history_files(f) == before  # the judge's "already applied"


def test_backfill_records_rounds_with_their_decisions(f: Files, tmp_path: Path) -> None:
    for i in range(2):
        at = T0 + i * HALF_HOUR
        judge(f, f"r{i}.json", detailed({BAD: "fail"}, at=at), iso(at))
    elsewhere = tmp_path / "backfilled"
    code, out, _ = f.canary("history", "record", str(f.root / "reports" / "r1.json"), "--decisions", str(f.decisions),
                            "--history", str(elsewhere), "--now", iso(T0 + HALF_HOUR))
    assert code == 0 and "recorded" in out
    doc = history_json(f, iso(T0 + DAY), "--history", str(elsewhere))
    bad = next(e for e in doc["endpoints"] if e["provider"] == BAD)  # type: ignore[union-attr, index]
    assert bad["windows"]["24h"]["suspensions"] == 1


def test_pass_rates_intervals_and_latency_are_right(f: Files) -> None:
    ttfts = [0.2, 0.4, 0.6, 0.8, 1.0, 9.0]
    for i, ttft in enumerate(ttfts):
        at = T0 + i * HALF_HOUR
        spec = {BAD: {"structured": "fail" if i == 0 else "pass", "language": "inconclusive" if i == 1 else "pass"}}
        judge(f, f"r{i}.json", detailed(spec, at=at, ttft={BAD: ttft}), iso(at))
    old = T0 - 3 * DAY  # a round three days earlier, backfilled: in the 7-day window, not in the 24-hour one
    old_path = f.root / "reports" / "old.json"
    old_path.write_text(json.dumps(detailed({BAD: "fail"}, at=old)), encoding="utf-8")
    assert f.canary("history", "record", str(old_path), "--now", iso(T0))[0] == 0
    doc = history_json(f, iso(T0 + 6 * HALF_HOUR))
    bad = next(e for e in doc["endpoints"] if e["provider"] == BAD)  # type: ignore[union-attr, index]
    day = bad["windows"]["24h"]
    structured = day["pass_rate"]["structured"]
    assert (structured["passes"], structured["fails"], structured["rate"]) == (5, 1, 5 / 6)
    assert structured["ci95"] == list(wilson_interval(5, 6))
    assert (day["pass_rate"]["language"]["passes"], day["pass_rate"]["language"]["other"]) == (5, 1)
    assert (day["ttft_p50_s"], day["ttft_p95_s"], day["ttft_samples"]) == (0.6, 9.0, 6)  # nearest rank
    assert day["tokens_per_s_p50"] == 50.0  # 100 tokens over 2 s of generation
    week = bad["windows"]["7d"]["pass_rate"]["structured"]
    assert (week["passes"], week["fails"]) == (5, 2)


def test_the_table_shows_each_contract_and_window(f: Files) -> None:
    judge(f, "r.json", detailed({BAD: "fail"}), iso(T0))
    code, out, _ = f.canary("history", "--now", iso(T0 + HALF_HOUR), "--model", MODEL)
    assert code == 0
    header = next(line for line in out.splitlines() if "provider" in line)
    assert "24 h" in header and "7 d" in header and "30 d" in header
    row = next(line for line in out.splitlines() if line.strip().startswith(BAD))
    assert "latency" in row and "100% [21%-100%] 1" in row
    assert any("structured" in line and "0% [0%-79%] 1" in line for line in out.splitlines())
    assert "ttft p50/p95" in out and "suspensions" in out


def test_an_empty_history_says_so(f: Files) -> None:
    code, out, _ = f.canary("history", "--now", iso(T0))
    assert code == 0 and "no rounds" in out


def test_a_corrupt_history_file_is_named_and_the_command_refuses(f: Files) -> None:
    judge(f, "r.json", detailed(), iso(T0))
    [name] = history_files(f)
    broken = f.state.parent / "history" / name
    broken.write_bytes(b"not xz at all")
    code, _, err = f.canary("history", "--now", iso(T0 + HALF_HOUR))
    assert code == 2 and str(broken) in err and "restore it from git" in err


def test_a_broken_history_never_blocks_the_judge_and_is_logged(f: Files) -> None:
    judge(f, "r0.json", detailed(), iso(T0))
    at = T0 + HALF_HOUR
    broken = day_path(f.state.parent / "history", at.date().isoformat())
    broken.parent.mkdir(parents=True)
    broken.write_bytes(b"\xfd7zXZ\x00 torn")
    code, _, err = judge(f, "r1.json", detailed({BAD: "fail"}, at=at), iso(at))
    assert code == 0 and "not added to the history" in err and str(broken) in err
    state = json.loads(f.state.read_text())
    assert state["last_round"]["round_id"] == detailed(at=at)["round_id"]
    [warning] = [line for line in f.audit_lines() if line["action"] == "history_failed"]
    assert str(broken) in warning["reason"] and warning["round_id"] == state["last_round"]["round_id"]


def test_a_history_path_that_cannot_be_written_never_blocks_the_judge(f: Files) -> None:
    (f.state.parent).mkdir(parents=True, exist_ok=True)
    (f.state.parent / "history").write_text("a file where the folder should be")
    code, _, err = judge(f, "r.json", detailed({BAD: "fail"}), iso(T0))
    assert code == 0 and "not added to the history" in err
    assert json.loads(f.state.read_text())["models"][MODEL][BAD]["failed_streak"] == 1
