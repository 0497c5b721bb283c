"""Notifications: stdout and $GITHUB_STEP_SUMMARY (delivery to services: test_notify_apprise.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from notify_receivers import receiving
from summary_data import record_of

from canary.integrations.notify import (
    NOTIFY_URLS_ENV,
    notify,
    render_markdown,
    render_text,
)

DOC: dict[str, Any] = {
    "schema_version": 1, "round_id": "r-1", "mode": "enforce", "now": "2026-11-29T22:30:00Z", "gap_minutes": 30.0,
    "decisions": [{"model": "m/x", "provider": "aurora/fp8", "action": "suspend", "rule": "failed_streak",
                   "reason": "2 failed rounds | *bold* <script>\nsecond line", "until": "2026-11-30T22:30:00Z",
                   "rung": 1, "evidence": []}],
    "ignore": {"m/x": ["aurora/fp8"]}, "would_ignore": {"m/x": ["aurora/fp8"]},
}


def test_the_text_summary_names_each_decision_on_one_line() -> None:
    text = render_text(record_of(DOC))
    assert "suspend aurora/fp8 of m/x (rung 1, until 2026-11-30T22:30:00Z)" in text
    assert len(text.splitlines()) == 2


def test_markdown_escapes_upstream_text() -> None:
    md = render_markdown(record_of(DOC))
    assert "<script>" not in md and r"2 failed rounds \| \*bold\* \<script\> second line" in md   # one line


def test_the_step_summary_gets_a_markdown_section(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("# earlier steps\n")
    notify(record_of(DOC), audit_path=tmp_path / "a.jsonl", env={"GITHUB_STEP_SUMMARY": str(summary)},
           echo=lambda _: None)
    text = summary.read_text()
    assert text.startswith("# earlier steps\n") and "### Judge decisions" in text and "| suspend |" in text


def test_the_stdout_summary_is_printed_whether_or_not_a_service_is_configured(tmp_path: Path) -> None:
    printed: list[str] = []
    with receiving() as hook:
        notify(record_of(DOC), audit_path=tmp_path / "a.jsonl", env={NOTIFY_URLS_ENV: f"json://127.0.0.1:{hook.port}/"},
               sleep=lambda _: None, echo=printed.append)
    assert printed[0].startswith("canary judge: round r-1") and len(hook.requests) == 1


def test_production_confirmations_are_summarised_but_not_sent(tmp_path: Path) -> None:
    routine = [{"model": "m/x", "provider": "aurora/fp8", "action": action, "rule": "production",
                "reason": "production evidence against it", "evidence": []} for action in ("confirm", "confirmation")]
    env = {"GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md")}
    with receiving() as hook:
        for decisions in (routine, [*routine, *DOC["decisions"]]):
            notify(record_of({**DOC, "decisions": decisions}), audit_path=tmp_path / "a.jsonl",
                   env={**env, NOTIFY_URLS_ENV: f"json://127.0.0.1:{hook.port}/"}, sleep=lambda _: None,
                   echo=lambda _: None)
    [sent] = [r.json()["message"] for r in hook.requests]   # only the round with a suspension sends one
    assert "suspend" in sent and "confirm" not in sent
    assert (tmp_path / "summary.md").read_text().count("| confirm |") == 2
