"""Notifications: stdout, $GITHUB_STEP_SUMMARY, a webhook with retries that never fails a round."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from canary.notify import WEBHOOK_ATTEMPTS, md_escape, notify, render_markdown, render_text

SECRET_URL = "https://hooks.example.invalid/services/T000/B000/very-secret-token"
DOC: dict[str, Any] = {
    "schema_version": 1, "round_id": "r-1", "mode": "enforce", "now": "2026-11-29T22:30:00Z", "gap_minutes": 30.0,
    "decisions": [{"model": "m/x", "provider": "aurora/fp8", "action": "suspend", "rule": "failed_streak",
                   "reason": "2 failed rounds | *bold* <script>\nsecond line", "until": "2026-11-30T22:30:00Z",
                   "rung": 1, "evidence": []}],
    "ignore": {"m/x": ["aurora/fp8"]}, "would_ignore": {"m/x": ["aurora/fp8"]},
}


def _client(statuses: list[int], seen: list[httpx.Request]) -> httpx.Client:
    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(statuses[min(len(seen), len(statuses)) - 1])
    return httpx.Client(transport=httpx.MockTransport(handler))


def test_the_text_summary_names_each_decision_on_one_line() -> None:
    text = render_text(DOC)
    assert "suspend aurora/fp8 of m/x (rung 1, until 2026-11-30T22:30:00Z)" in text
    assert len(text.splitlines()) == 2


def test_markdown_escapes_upstream_text() -> None:
    md = render_markdown(DOC)
    assert "<script>" not in md and r"\|" in md and r"\*bold\*" in md
    assert md_escape("a\nb") == "a b"


def test_a_webhook_is_retried_until_it_succeeds(tmp_path: Path) -> None:
    seen: list[httpx.Request] = []
    notify(DOC, audit_path=tmp_path / "audit.jsonl", env={"CANARY_WEBHOOK_URL": SECRET_URL},
           client=_client([500, 200], seen), sleep=lambda _: None, echo=lambda _: None)
    assert len(seen) == 2 and json.loads(seen[0].content)["text"].startswith("canary judge: round r-1")
    assert not (tmp_path / "audit.jsonl").exists()


def test_a_failing_webhook_is_recorded_never_fatal_and_never_leaks_the_url(tmp_path: Path) -> None:
    seen: list[httpx.Request] = []
    printed: list[str] = []
    audit = tmp_path / "audit.jsonl"
    notify(DOC, audit_path=audit, env={"CANARY_WEBHOOK_URL": SECRET_URL},
           client=_client([503], seen), sleep=lambda _: None, echo=printed.append)
    assert len(seen) == WEBHOOK_ATTEMPTS
    [line] = [json.loads(x) for x in audit.read_text().splitlines()]
    assert line["action"] == "webhook_failed" and "HTTP 503" in line["reason"]
    assert "very-secret-token" not in audit.read_text() + "".join(printed)


def test_a_webhook_that_cannot_connect_is_recorded(tmp_path: Path) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError(f"cannot reach {SECRET_URL}", request=request)
    audit = tmp_path / "audit.jsonl"
    notify(DOC, audit_path=audit, env={"CANARY_WEBHOOK_URL": SECRET_URL},
           client=httpx.Client(transport=httpx.MockTransport(handler)), sleep=lambda _: None, echo=lambda _: None)
    assert "ConnectError" in audit.read_text() and "very-secret-token" not in audit.read_text()


def test_the_step_summary_gets_a_markdown_section(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("# earlier steps\n")
    notify(DOC, audit_path=tmp_path / "a.jsonl", env={"GITHUB_STEP_SUMMARY": str(summary)}, echo=lambda _: None)
    text = summary.read_text()
    assert text.startswith("# earlier steps\n") and "### Judge decisions" in text and "| suspend |" in text


def test_no_webhook_post_for_a_round_without_decisions(tmp_path: Path) -> None:
    seen: list[httpx.Request] = []
    notify({**DOC, "decisions": []}, audit_path=tmp_path / "a.jsonl", env={"CANARY_WEBHOOK_URL": SECRET_URL},
           client=_client([200], seen), echo=lambda _: None)
    assert seen == []
