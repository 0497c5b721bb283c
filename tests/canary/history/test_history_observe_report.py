"""`canary observe-report`: every would-suspend of the window, its evidence and what happened next."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from history_support import PROVIDERS, T0, detailed
from judge_cli_support import HALF_HOUR, Files, files_in, iso

BAD = PROVIDERS[0]
# fail, fail (would suspend), clean, clean (restored), fail, fail (would suspend again), clean
STORY = ["fail", "fail", None, None, "fail", "fail", None]


@pytest.fixture
def f(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Files:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.delenv("CANARY_WEBHOOK_URL", raising=False)
    files = files_in(tmp_path, capsys, mode="observe")
    for i, outcome in enumerate(STORY):
        at = T0 + i * HALF_HOUR
        path = files.root / "reports" / f"r{i}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        spec = {BAD: outcome, PROVIDERS[1]: "fail" if i == 1 else "pass"} if outcome else None
        path.write_text(json.dumps(detailed(spec, at=at)), encoding="utf-8")
        assert files.canary("judge", str(path), "--now", iso(at))[0] == 0
    return files


def report(f: Files, *args: str) -> dict[str, object]:
    code, out, err = f.canary("observe-report", "--json", "--now", iso(T0 + 7 * HALF_HOUR), *args)
    assert code == 0, err
    return dict(json.loads(out))


def test_each_would_suspend_comes_with_its_evidence_and_its_end(f: Files) -> None:
    first, second = report(f, "--days", "1")["would_suspends"]  # type: ignore[misc]
    assert (first["provider"], first["at"], first["rung"]) == (BAD, iso(T0 + HALF_HOUR), 1)
    [evidence] = [e for e in first["evidence"] if e["outcome"] == "fail"]
    assert (evidence["contract"], evidence["code"]) == ("structured", "schema_violation")
    assert evidence["endpoints_failing_it_that_round"] == [2, len(PROVIDERS)]
    assert first["outcome"] == "restored" and first["ended_at"] == iso(T0 + 3 * HALF_HOUR)
    assert first["rounds_until_end"] == {"failed": 1, "clean": 2, "frozen": 0}
    assert first["then"] == {"action": "would_suspend", "at": iso(T0 + 5 * HALF_HOUR), "rule": "failed_streak"}
    assert (second["at"], second["rung"], second["outcome"], second["then"]) == (
        iso(T0 + 5 * HALF_HOUR), 2, "active", None)


def test_the_window_limits_the_report(f: Files) -> None:
    assert report(f, "--days", str(1.5 / 24))["would_suspends"][0]["at"] == iso(T0 + 5 * HALF_HOUR)  # type: ignore[index]
    assert report(f, "--days", "1", "--model", "no/such")["would_suspends"] == []


def test_the_text_report_reads_like_a_story(f: Files) -> None:
    code, out, _ = f.canary("observe-report", "--days", "1", "--now", iso(T0 + 7 * HALF_HOUR))
    assert code == 0
    assert "2 would-suspend(s)" in out and "1 restored by clean rounds" in out and "1 still active" in out
    assert "schema_violation" in out and "[2 of 5 endpoints failed structured that round]" in out
    assert "then: would_suspend again at " + iso(T0 + 5 * HALF_HOUR) in out


def test_without_history_the_audit_log_still_answers(f: Files) -> None:
    broken = next((f.state.parent / "history").rglob("*.xz"))
    broken.write_bytes(b"broken")
    doc = report(f, "--days", "1")
    assert len(doc["would_suspends"]) == 2 and str(broken) in str(doc["warning"])  # type: ignore[arg-type]
    assert doc["would_suspends"][0]["rounds_until_end"] is None  # type: ignore[index]


def test_a_would_suspend_enforced_by_the_switch_to_enforce_says_so(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    files = files_in(tmp_path, capsys, mode="observe")
    for i, mode in enumerate(("observe", "observe", "enforce")):
        at = T0 + i * HALF_HOUR
        path = files.results(f"r{i}.json", {BAD: "fail"}, at=at)
        assert files.canary("judge", str(path), "--now", iso(at), "--mode", mode)[0] == 0
    [record] = report(files, "--days", "1")["would_suspends"]  # type: ignore[misc]
    assert (record["outcome"], record["ended_at"]) == ("enforced", iso(T0 + 2 * HALF_HOUR))


def test_an_evidence_line_is_counted_by_its_code_and_an_older_one_keeps_its_words() -> None:
    from canary.history.observe import would_suspends
    from canary.state.audit import AuditLine, read_line

    def line(evidence: dict[str, str]) -> AuditLine:
        return read_line({"time": iso(T0), "action": "would_suspend", "model": "m/x", "provider": BAD,
                          "rule": "failed_streak", "reason": "2 failed rounds", "evidence": [evidence]},
                         "audit.jsonl:1")

    # The words say one thing, the code another: the code is what counts.
    new, = would_suspends([line({"contract": "latency", "outcome": "fail", "code": "decode_slow",
                                 "reason": "first token after 12 s > 10 s"})], since=T0, now=T0 + HALF_HOUR)
    old, = would_suspends([line({"contract": "latency", "outcome": "fail", "reason": "first token after 12 s > 10 s"})],
                          since=T0, now=T0 + HALF_HOUR)
    assert new.evidence[0][2] == "decode_slow"
    assert old.evidence[0][2:] == ("fail_other", "first token after 12 s > 10 s")


def test_an_older_round_with_free_text_reasons_still_reads_and_shows_its_words(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # results.json version 1 and evidence lines without a code, as canary wrote them before codes.
    files = files_in(tmp_path, capsys, mode="observe")
    words = "leading garbage: stray punctuation at the start: '_,The corridor' (confirmed: 3 of 3)"
    for i in range(2):
        doc = detailed({BAD: {"language": "fail"}}, at=T0 + i * HALF_HOUR) | {"schema_version": 1}
        for case in doc["cases"]:
            case.pop("code")
            case["reason"] = words if case["outcome"] == "fail" else case["reason"]
        path = files.root / "reports" / f"r{i}.json"
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps(doc), encoding="utf-8")
        assert files.canary("judge", str(path), "--now", iso(T0 + i * HALF_HOUR))[0] == 0
    lines = [json.loads(line) for line in files.audit.read_text(encoding="utf-8").splitlines()]
    for line in lines:
        for e in line.get("evidence", []):
            e.pop("code", None)
    files.audit.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    code, out, err = files.canary("observe-report", "--days", "1", "--now", iso(T0 + 2 * HALF_HOUR))
    assert code == 0, err
    assert "1 would-suspend(s)" in out and f"language   fail            fail_other         {words}" in out, out


def test_an_audit_line_of_another_shape_is_named_and_the_rest_still_reported(f: Files) -> None:
    lines = f.audit.read_text(encoding="utf-8").splitlines()
    bad = json.loads(next(line for line in lines if '"would_suspend"' in line)) | {"rung": "one"}
    with f.audit.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(bad) + "\n")
    code, out, err = f.canary("observe-report", "--json", "--now", iso(T0 + 7 * HALF_HOUR), "--days", "1")
    assert code == 0 and len(json.loads(out)["would_suspends"]) == 2
    assert (f"canary observe-report: warning: {f.audit}:{len(lines) + 1}: rung: expected a whole number or null, "
            "got 'one' (that audit line is skipped)") in err
