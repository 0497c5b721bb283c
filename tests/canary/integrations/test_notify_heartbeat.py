"""`canary heartbeat`: a healthchecks-style ping after each round, to a local server over a socket."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from notify_receivers import closed_port, receiving

from canary.cli.main import main
from canary.integrations.notifications import heartbeat

UUID = "5f1e3c1a-0b7d-4c5e-9f00-8d1f2a3b4c5d"
DOC: dict[str, Any] = {"schema_version": 1, "round_id": "r-7", "mode": "observe", "now": "2026-11-29T22:30:00Z",
                       "decisions": [{"model": "m/x", "provider": "a/b", "action": "would_suspend",
                                      "rule": "failed_streak", "reason": "x"}]}


@pytest.fixture
def decisions(tmp_path: Path) -> Path:
    path = tmp_path / "decisions.json"
    path.write_text(json.dumps(DOC), encoding="utf-8")
    return path


def _run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], url: str | None,
         *args: str) -> tuple[int, str]:
    if url is not None:
        monkeypatch.setenv(heartbeat.HEARTBEAT_ENV, url)
    monkeypatch.setattr(heartbeat, "BACKOFF_S", (0.0,))   # the real pauses are seconds long
    code = main(["heartbeat", *args])
    out = capsys.readouterr()
    return code, out.out + out.err


def test_a_judged_round_pings_the_success_url_with_its_summary(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], decisions: Path) -> None:
    with receiving() as monitor:
        code, out = _run(monkeypatch, capsys, f"http://127.0.0.1:{monitor.port}/{UUID}", "--decisions", str(decisions))
    [request] = monitor.requests
    assert code == 0 and request.method == "POST" and request.path == f"/{UUID}"
    assert request.body.decode() == "round r-7 (observe mode): 1 decision(s)"
    assert "success signalled" in out and UUID not in out


def test_an_incomplete_round_pings_the_fail_url(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "d.json"
    path.write_text(json.dumps({**DOC, "decisions": [
        {"model": "*", "provider": "*", "action": "incomplete_round", "rule": "incomplete_round",
         "reason": "discovery failed"}]}))
    with receiving() as monitor:
        assert _run(monkeypatch, capsys, f"http://127.0.0.1:{monitor.port}/{UUID}/", "--decisions", str(path))[0] == 0
    assert monitor.requests[0].path == f"/{UUID}/fail"
    assert "round incomplete: discovery failed" in monitor.requests[0].body.decode()


def test_a_missing_decisions_file_means_the_judge_did_not_finish(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with receiving() as monitor:
        _run(monkeypatch, capsys, f"http://127.0.0.1:{monitor.port}/ping/{UUID}?rid=1", "--decisions",
             str(tmp_path / "absent.json"))
    assert monitor.requests[0].path == f"/ping/{UUID}/fail?rid=1"
    assert monitor.requests[0].body.decode().startswith("no decisions file")


def test_fail_flag_and_a_custom_failure_url(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                            decisions: Path) -> None:
    with receiving() as monitor:
        monkeypatch.setenv(heartbeat.HEARTBEAT_FAIL_ENV, f"http://127.0.0.1:{monitor.port}/push/{UUID}?status=down")
        _run(monkeypatch, capsys, f"http://127.0.0.1:{monitor.port}/push/{UUID}?status=up", "--decisions",
             str(decisions), "--fail")
    assert monitor.requests[0].path == f"/push/{UUID}?status=down"


def test_a_monitor_answering_5xx_is_retried_and_never_fatal(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], decisions: Path) -> None:
    with receiving(503) as monitor:
        code, out = _run(monkeypatch, capsys, f"http://127.0.0.1:{monitor.port}/{UUID}", "--decisions", str(decisions))
    assert code == 0 and len(monitor.requests) == heartbeat.ATTEMPTS
    assert "not delivered (HTTP 503)" in out and UUID not in out


def test_a_monitor_that_recovers_gets_the_ping(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                               decisions: Path) -> None:
    with receiving(502, 200) as monitor:
        code, out = _run(monkeypatch, capsys, f"http://127.0.0.1:{monitor.port}/{UUID}", "--decisions", str(decisions))
    assert code == 0 and len(monitor.requests) == 2 and "success signalled" in out


def test_a_refused_connection_is_reported_without_the_url(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], decisions: Path) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    code, out = _run(monkeypatch, capsys, f"http://127.0.0.1:{closed_port()}/{UUID}", "--decisions", str(decisions))
    assert code == 0 and "::warning::canary heartbeat: the success ping was not delivered (ConnectError)" in out
    assert UUID not in out


def test_a_4xx_is_not_retried(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    with receiving(404) as monitor:
        code, out = _run(monkeypatch, capsys, f"http://127.0.0.1:{monitor.port}/{UUID}")
    assert code == 0 and len(monitor.requests) == 1 and "HTTP 404" in out


def test_without_a_url_there_is_nothing_to_ping(monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _run(monkeypatch, capsys, None)
    assert code == 0 and "not set; nothing to ping" in out


def test_a_malformed_url_is_reported_without_being_printed(monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _run(monkeypatch, capsys, f"hc-ping.com/{UUID}")
    assert code == 0 and UUID not in out and "not delivered" in out


def test_the_failure_url_is_the_healthchecks_fail_suffix_before_any_query() -> None:
    assert heartbeat.failure_url("https://hc-ping.com/abc") == "https://hc-ping.com/abc/fail"
    assert heartbeat.failure_url("https://hc-ping.com/key/slug/?create=1") == "https://hc-ping.com/key/slug/fail?create=1"
    assert heartbeat.failure_url("https://x/y", "https://x/y?status=down") == "https://x/y?status=down"
