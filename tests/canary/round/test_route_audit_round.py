"""A round with a backend's production records names its leak in decisions.json, the audit log, the summary
and the digest, and tells the operator the backend is not applying provider.ignore (issue 40, item 3)."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from judge_cli_support import HALF_HOUR, MODEL, PROVIDERS, T0, Files, files_in, iso
from rules_factories import served_record

from canary.integrations.notifications.digest import compose_digest, render_digest
from canary.outputs.summary import to_markdown, to_text
from canary.round.judging import JudgeRequest, run_judge
from canary.state import audit
from canary.state.judge_files import load_state
from core.config import load_config
from core.results_read import read_results

BAD = PROVIDERS[0]   # aurora/fp8: its replies say "Aurora" (matched by the tag's provider slug)


@pytest.fixture
def f(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Files:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    files = files_in(tmp_path)
    for i in range(2):   # two failed rounds: aurora/fp8 suspended (enforce) from T0 + 30 min
        at = T0 + i * HALF_HOUR
        assert files.canary("judge", str(files.results(f"r{i}.json", {BAD: "fail"}, at=at)), "--now", iso(at))[0] == 0
    return files


def _judge(f: Files, at, records) -> object:
    path = f.results("r9.json", at=at)
    return run_judge(JudgeRequest(path, load_config(f.config), at, production=tuple(records), send=False),
                     echo=lambda _: None).decisions


def test_a_suspended_endpoint_serving_sampled_replies_is_named_and_the_operator_told(f: Files) -> None:
    at = T0 + 6 * HALF_HOUR
    leaking = served_record(at - timedelta(minutes=2), {"Aurora": 9, "Borealis": 140, "Cirrus": 151})

    decisions = _judge(f, at, [leaking])

    (leak,) = decisions.leaks
    assert (leak.provider, leak.leaked, leak.sampled, leak.layer) == (BAD, 9, 300, "suspension")
    written = json.loads(f.decisions.read_text())
    assert written["leaks"][0]["leaked"] == 9 and written["leaks"][0]["provider"] == BAD
    (line,) = [x for x in f.audit_lines() if x["action"] == "route_leak"]
    assert line["provider"] == BAD and "not applying provider.ignore" in line["reason"]
    results = read_results(json.loads((f.root / "reports" / "r9.json").read_text()))
    for summary in (to_text(results, decisions), to_markdown(results, decisions)):
        assert "served while excluded" in summary and "9/300" in summary
    digest = compose_digest(now=at + HALF_HOUR, state=load_state(f.state), exclusions=(), silences=(), maintenance=(),
                            would=(), previous=None, audit_lines=audit.read(f.audit).lines)
    assert any(BAD in line.text and "9 of 300" in line.text for line in digest.lines)
    assert "Served while excluded" in render_digest(digest).body


def test_below_the_threshold_the_leak_is_named_without_an_alarm_and_a_clean_backend_has_none(f: Files) -> None:
    at = T0 + 6 * HALF_HOUR
    small = served_record(at - timedelta(minutes=2), {"Aurora": 5, "Borealis": 600})
    clean = served_record(at - timedelta(minutes=2), {"Borealis": 300, "Cirrus": 300}, exporter="chat-us-1")

    decisions = _judge(f, at, [small, clean])

    assert [(k.exporter, k.leaked) for k in decisions.leaks] == [("chat-eu-1", 5)]
    assert not [d for d in decisions.decisions if d.action == "route_leak"]
    assert MODEL in decisions.ignore


def test_canary_judge_production_dir_audits_the_routes_of_the_records_it_reads(f: Files) -> None:
    from core.production import record_json
    from core.times import stamp

    at = T0 + 6 * HALF_HOUR
    record = served_record(at - timedelta(minutes=2), {"Aurora": 9, "Borealis": 291}, exporter="chat-us-1")
    folder = f.root / "production" / "chat-us-1"
    folder.mkdir(parents=True)
    (folder / f"{stamp(record.window_start).replace(':', '')}.json").write_bytes(record_json(record))

    code, _, _ = f.canary("judge", str(f.results("r9.json", at=at)), "--now", iso(at),
                          "--production", str(f.root / "production"))

    assert code == 0
    assert [(k["exporter"], k["leaked"]) for k in json.loads(f.decisions.read_text())["leaks"]] == [("chat-us-1", 9)]
    assert [x["provider"] for x in f.audit_lines() if x["action"] == "route_leak"] == [BAD]
