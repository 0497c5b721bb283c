"""`canary judge`: files in, decisions.json, audit and state out; refusals write nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from judge_cli_support import HALF_HOUR, MODEL, PROVIDERS, T0, Files, files_in, iso

BAD = PROVIDERS[0]


@pytest.fixture
def f(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Files:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.delenv("CANARY_WEBHOOK_URL", raising=False)
    return files_in(tmp_path, capsys)


def _two_failed_rounds(f: Files) -> None:
    for i in range(2):
        at = T0 + i * HALF_HOUR
        assert f.canary("judge", str(f.results(f"r{i}.json", {BAD: "fail"}, at=at)), "--now", iso(at))[0] == 0


def test_judge_writes_decisions_audit_and_state(f: Files) -> None:
    _two_failed_rounds(f)
    doc = json.loads(f.decisions.read_text())
    assert doc["schema_version"] == 1 and doc["mode"] == "enforce" and doc["gap_minutes"] == 30.0
    [d] = doc["decisions"]
    assert (d["action"], d["provider"], d["rung"], d["until"]) == ("suspend", BAD, 1, iso(T0 + HALF_HOUR + 48 * HALF_HOUR))
    assert d["evidence"] == [{"contract": "structured", "outcome": "fail", "reason": "structured fail"}]
    assert doc["ignore"] == {MODEL: [BAD]} and doc["would_ignore"] == {MODEL: [BAD]}
    [line] = f.audit_lines()
    assert line["round_id"] == doc["round_id"] and line["action"] == "suspend" and line["rule"] == "failed_streak"
    state = json.loads(f.state.read_text())
    assert state["models"][MODEL][BAD]["suspension"]["mode"] == "enforce"


def test_the_first_round_has_no_gap(f: Files) -> None:
    f.canary("judge", str(f.results("r.json")), "--now", iso(T0))
    assert json.loads(f.decisions.read_text())["gap_minutes"] is None


def test_the_same_round_twice_prints_already_applied_and_changes_nothing(f: Files) -> None:
    path = f.results("r.json", {BAD: "fail"})
    f.canary("judge", str(path), "--now", iso(T0))
    before = f.snapshot()
    code, out, _ = f.canary("judge", str(path), "--now", iso(T0 + HALF_HOUR))
    assert code == 0 and "already applied" in out
    assert f.snapshot() == before


def test_an_out_of_order_round_is_refused_and_nothing_is_written(f: Files) -> None:
    f.canary("judge", str(f.results("new.json", at=T0 + HALF_HOUR)), "--now", iso(T0))
    old = f.results("old.json", at=T0)
    before = f.snapshot()
    code, _, err = f.canary("judge", str(old), "--now", iso(T0))
    assert code == 2 and "not after the last applied round" in err
    assert f.snapshot() == before


def test_shards_are_judged_as_one_round(f: Files) -> None:
    a = f.results("a.json", model="x/one", round_id="shard-a")
    b = f.results("b.json", model="y/two", round_id="shard-b")
    assert f.canary("judge", str(a), str(b), "--now", iso(T0))[0] == 0
    doc = json.loads(f.decisions.read_text())
    assert doc["round_id"] == "shard-a+shard-b"
    assert {"x/one", "y/two"} <= set(json.loads(f.state.read_text())["models"])


def test_the_mode_flag_overrides_the_configuration(f: Files) -> None:
    for i in range(2):
        at = T0 + i * HALF_HOUR
        f.canary("judge", str(f.results(f"r{i}.json", {BAD: "fail"}, at=at)), "--now", iso(at), "--mode", "observe")
    doc = json.loads(f.decisions.read_text())
    assert [d["action"] for d in doc["decisions"]] == ["would_suspend"]
    assert doc["ignore"] == {MODEL: []} and doc["would_ignore"] == {MODEL: [BAD]}


def test_an_incomplete_round_changes_no_streak(f: Files) -> None:
    f.canary("judge", str(f.results("a.json", {BAD: "fail"})), "--now", iso(T0))
    f.canary("judge", str(f.results("b.json", {BAD: "fail"}, at=T0 + HALF_HOUR, complete=False)), "--now", iso(T0))
    assert json.loads(f.state.read_text())["models"][MODEL][BAD]["failed_streak"] == 1
    assert [d["action"] for d in json.loads(f.decisions.read_text())["decisions"]] == ["incomplete_round"]


def test_hostile_provider_tags_are_recorded_as_rejected_input(f: Files) -> None:
    path = f.results("r.json", extra_cases=[{"model": MODEL, "provider": "x;rm -rf ~", "contract": "latency",
                                              "outcome": "fail", "reason": "r", "control": False}])
    code, out, _ = f.canary("judge", str(path), "--now", iso(T0))
    assert code == 0 and "set aside" in out
    [line] = f.audit_lines()
    assert line["action"] == "rejected_input" and "x;rm -rf ~" not in json.dumps(json.loads(f.state.read_text()))


@pytest.mark.parametrize("target,content,where", [
    ("state", '{"schema_version": 1,\n "models": {\n', "line 3"),
    ("state", '{"schema_version": 1, "models": {"m/x": {"p": {"failed_streak": -1}}}}', "not in the expected shape"),
    ("incidents", 'm/x:\n  - provider: a/fp8\n    reason: [unclosed\n', "line 4"),
    ("builtin", 'm/x:\n  - provider: a/fp8\n    reasn: typo\n', "line 3"),
    ("incidents", 'm/x:\n  - provider: "a b"\n    reason: r\n    added_at: "2026-01-01"\n', "line 2"),
], ids=["state-json-syntax", "state-shape", "incidents-yaml-syntax", "builtin-unknown-field", "incidents-bad-tag"])
def test_a_corrupt_file_is_refused_naming_file_and_line_and_nothing_is_written(
        f: Files, target: str, content: str, where: str) -> None:
    path: Path = getattr(f, target)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content, encoding="utf-8")
    results_path = f.results("r.json", {BAD: "fail"})
    before = f.snapshot()
    code, _, err = f.canary("judge", str(results_path), "--now", iso(T0))
    assert code == 2 and str(path) in err and where in err and "Nothing was written" in err
    assert f.snapshot() == before


def test_a_broken_results_file_is_refused_with_its_name(f: Files) -> None:
    path = f.root / "bad.json"
    path.write_text('{"schema_version": 1, "round_id": "x"}')
    code, _, err = f.canary("judge", str(path), "--now", iso(T0))
    assert code == 2 and str(path) in err and not f.state.exists()
