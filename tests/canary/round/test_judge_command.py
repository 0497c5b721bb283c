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
    assert (d["action"], d["provider"], d["rung"], d["until"]) == (
        "suspend", BAD, 1, iso(T0 + HALF_HOUR + 48 * HALF_HOUR))
    # The case's code (a version 1 file's, derived from words no rule maps) travels with the evidence.
    assert d["evidence"] == [{"contract": "structured", "outcome": "fail", "reason": "structured fail",
                              "code": "fail_other"}]
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
    before = {k: v for k, v in f.snapshot().items() if k != str(f.decisions)}
    code, out, _ = f.canary("judge", str(path), "--now", iso(T0 + HALF_HOUR))
    assert code == 0 and "already applied" in out
    assert {k: v for k, v in f.snapshot().items() if k != str(f.decisions)} == before


def test_an_already_applied_round_rewrites_its_decisions_from_the_state_and_the_audit_log(f: Files) -> None:
    first = f.results("r0.json", {BAD: "fail"}, at=T0)
    second = f.results("r1.json", {BAD: "fail"}, at=T0 + HALF_HOUR)
    f.canary("judge", str(first), "--now", iso(T0))
    f.canary("judge", str(second), "--now", iso(T0 + HALF_HOUR))
    committed = json.loads(f.decisions.read_text())
    f.decisions.write_text('{"round_id": "stale", "decisions": []}')  # what a stale judgement left
    state, audit = f.state.read_bytes(), f.audit.read_bytes()
    code, _, _ = f.canary("judge", str(second), "--now", iso(T0 + 5 * HALF_HOUR))
    doc = json.loads(f.decisions.read_text())
    assert code == 0 and doc["already_applied"] is True and committed["already_applied"] is False
    assert doc["decisions"] == committed["decisions"] and [d["action"] for d in doc["decisions"]] == ["suspend"]
    assert (doc["round_id"], doc["mode"], doc["now"]) == (committed["round_id"], "enforce", iso(T0 + HALF_HOUR))
    assert doc["ignore"] == {MODEL: [BAD]}  # the effective list as the state holds it now
    assert f.state.read_bytes() == state and f.audit.read_bytes() == audit


def test_a_planned_model_without_results_makes_the_round_incomplete_for_that_model_only(f: Files) -> None:
    other = "other/model"
    for i in range(2):  # both models probed, BAD of both failing once
        at = T0 + i * HALF_HOUR
        a = f.results(f"a{i}.json", {BAD: "fail"} if i == 0 else None, at=at, round_id=f"r{i}")
        if i == 0:  # round 0 probed both models; round 1's probe job was cut short before the other one
            doc, b = json.loads(a.read_text()), json.loads(f.results("b.json", {BAD: "fail"}, model=other).read_text())
            doc.update(models={**doc["models"], **b["models"]}, cases=doc["cases"] + b["cases"])
            a.write_text(json.dumps(doc))
        assert f.canary("judge", str(a), "--expect-models", f"{MODEL},{other}", "--now", iso(at))[0] == 0
    doc = json.loads(f.decisions.read_text())
    [missing] = [d for d in doc["decisions"] if d["model"] == other]
    assert (missing["action"], missing["provider"]) == ("incomplete_round", "*")
    assert "the probe job left none for it" in missing["reason"] and doc["expected_models"] == [MODEL, other]
    state = json.loads(f.state.read_text())
    assert state["models"][other][BAD]["failed_streak"] == 1  # nothing moved for the missing model
    assert state["models"][MODEL][BAD]["failed_streak"] == 0 and state["models"][MODEL][BAD]["clean_streak"] == 1
    [line] = [a for a in f.audit_lines() if a["model"] == other]
    assert line["action"] == "incomplete_round"


def test_without_a_results_file_the_judge_names_the_planned_models_and_writes_nothing(f: Files) -> None:
    code, _, err = f.canary("judge", "--expect-models", f"{MODEL},other/model", "--now", iso(T0))
    assert code == 2 and f"none of the planned models ({MODEL}, other/model) has results" in err
    assert not f.state.exists() and not f.decisions.exists()


def test_a_planned_model_id_that_is_not_one_is_refused(f: Files) -> None:
    code, _, err = f.canary("judge", str(f.results("r.json")), "--expect-models", "a;b", "--now", iso(T0))
    assert code == 2 and "is not a model id" in err and not f.state.exists()


def test_a_simulator_round_is_refused_on_the_real_state_and_nothing_is_written(f: Files) -> None:
    path = f.results("sim.json", {BAD: "fail"})
    path.write_text(path.read_text().replace('"upstream": "openrouter"', '"upstream": "simulator"'))
    before = f.snapshot()
    code, _, err = f.canary("judge", str(path), "--now", iso(T0))
    assert code == 2 and "bundled simulator" in err and str(f.state) in err and "--allow-simulator" in err
    assert f.snapshot() == before


@pytest.mark.parametrize("how", ["allow-simulator", "simulator-state folder"])
def test_a_simulator_round_is_applied_to_a_simulator_state_or_when_allowed(f: Files, how: str) -> None:
    path = f.results("sim.json", {BAD: "fail"})
    path.write_text(path.read_text().replace('"upstream": "openrouter"', '"upstream": "simulator"'))
    if how == "allow-simulator":
        args, state = ["--allow-simulator"], f.state
    else:
        state = f.root / "reports" / "simulator-state" / "state.json"
        args = ["--state", str(state), "--audit", str(state.parent / "audit.jsonl")]
    assert f.canary("judge", str(path), *args, "--now", iso(T0))[0] == 0
    assert json.loads(state.read_text())["applied_rounds"] == [json.loads(path.read_text())["round_id"]]


def test_an_out_of_order_round_is_refused_and_nothing_is_written(f: Files) -> None:
    f.canary("judge", str(f.results("new.json", at=T0 + HALF_HOUR)), "--now", iso(T0 + HALF_HOUR))
    old = f.results("old.json", at=T0)
    before = f.snapshot()
    code, _, err = f.canary("judge", str(old), "--now", iso(T0 + HALF_HOUR))
    assert code == 2 and "not after the last applied round" in err
    assert f.snapshot() == before


def test_the_merged_round_id_of_an_older_version_still_reads(f: Files) -> None:
    merged = f.results("a.json", model="x/one", round_id="shard-a+shard-b")  # older versions merged shards
    assert f.canary("judge", str(merged), "--now", iso(T0))[0] == 0
    assert json.loads(f.decisions.read_text())["round_id"] == "shard-a+shard-b"
    assert json.loads(f.state.read_text())["applied_rounds"] == ["shard-a+shard-b"]


def test_the_mode_flag_overrides_the_configuration(f: Files) -> None:
    for i in range(2):
        at = T0 + i * HALF_HOUR
        f.canary("judge", str(f.results(f"r{i}.json", {BAD: "fail"}, at=at)), "--now", iso(at), "--mode", "observe")
    doc = json.loads(f.decisions.read_text())
    assert [d["action"] for d in doc["decisions"]] == ["would_suspend"]
    assert doc["ignore"] == {MODEL: []} and doc["would_ignore"] == {MODEL: [BAD]}


def test_a_one_off_enforce_round_on_an_observing_state_enforces_it_and_the_next_round_observes_again(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 29: `canary judge --mode enforce` (the workflow's manual *mode* input) on a state that
    has been observing: the would-suspend becomes the suspension, and nothing else is said."""
    f = files_in(tmp_path, capsys, mode="observe")
    other = PROVIDERS[1]
    for i in range(3):
        at = T0 + i * HALF_HOUR
        assert f.canary("judge", str(f.results(f"r{i}.json", {BAD: "fail"}, at=at)), "--now", iso(at))[0] == 0
    at = T0 + 3 * HALF_HOUR
    code, out, _ = f.canary("judge", str(f.results("r3.json", {BAD: "fail", other: "fail"}, at=at)), "--now", iso(at),
                            "--mode", "enforce")
    doc = json.loads(f.decisions.read_text())
    assert code == 0 and doc["mode"] == "enforce"
    assert [(d["action"], d["provider"], d["rule"]) for d in doc["decisions"]] == [("suspend", BAD, "mode_switch")]
    assert doc["ignore"] == {MODEL: [BAD]} and "expired" not in out
    at = T0 + 4 * HALF_HOUR
    f.canary("judge", str(f.results("r4.json", {BAD: "fail", other: "fail"}, at=at)), "--now", iso(at))
    doc = json.loads(f.decisions.read_text())
    assert doc["mode"] == "observe"  # canary.yaml's again: the override was that round's only
    assert [(d["action"], d["provider"]) for d in doc["decisions"]] == [("would_suspend", other)]
    assert doc["ignore"] == {MODEL: [BAD]}  # what the enforce round suspended stays enforced


def test_an_incomplete_round_changes_no_streak(f: Files) -> None:
    f.canary("judge", str(f.results("a.json", {BAD: "fail"})), "--now", iso(T0))
    f.canary("judge", str(f.results("b.json", {BAD: "fail"}, at=T0 + HALF_HOUR, complete=False)),
             "--now", iso(T0 + HALF_HOUR))
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
