"""Notifications through Apprise, delivered over real sockets to local receivers.

Generic JSON webhook (json://), ntfy (ntfy://) and e-mail (mailto:// to a local SMTP server)
receive the round's message; failures (5xx, connection refused, timeout, a URL Apprise does
not understand) end in the audit log, never in an exception or a printed URL.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from notify_receivers import HANG, closed_port, receiving, smtp_receiving
from summary_data import record_of

from canary.integrations import notify
from canary.integrations.notifications import send as notifications
from canary.integrations.notifications.urls import NOTIFY_URLS_ENV, WEBHOOK_ENV, Target

TOKEN = "s3cr3t-t0ken-value-42"
PASSWORD = "hunter2-pass"
HOSTILE = "2 failed rounds <img src=x onerror=alert(1)> [click](http://evil.example) @everyone\nsecond line"
DOC: dict[str, Any] = {
    "schema_version": 1, "round_id": "r-1", "mode": "enforce", "now": "2026-11-29T22:30:00Z", "gap_minutes": 30.0,
    "decisions": [
        {"model": "m/x", "provider": "aurora/fp8", "action": "suspend", "rule": "failed_streak",
         "reason": HOSTILE, "until": "2026-11-30T22:30:00Z", "rung": 1,
         "evidence": [{"contract": "language", "outcome": "fail", "reason": "leading garbage: '_,**x**'"}]},
        {"model": "m/x", "provider": "borealis/bf16", "action": "restore", "rule": "clean_streak",
         "reason": "2 clean rounds in a row: restored early", "rung": 1, "evidence": []},
    ],
    "ignore": {"m/x": ["aurora/fp8"]}, "would_ignore": {"m/x": ["aurora/fp8"]},
}


def _send(urls: list[Any], audit: Path, printed: list[str] | None = None, attempts: int = 3,
          doc: dict[str, Any] = DOC) -> list[notifications.Failure]:
    return notifications.send(record_of(doc), urls, audit, attempts=attempts, sleep=lambda _: None,
                              echo=(printed.append if printed is not None else lambda _: None), env={})


def _audit(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_a_json_webhook_receives_the_title_the_plain_body_and_the_worst_severity(tmp_path: Path) -> None:
    with receiving() as hook:
        assert _send([f"json://127.0.0.1:{hook.port}/canary"], tmp_path / "audit.jsonl") == []
    [request] = hook.requests
    payload = request.json()
    assert request.method == "POST" and request.path == "/canary"
    assert payload["title"] == "canary: 1 suspended, 1 restored" and payload["type"] == "failure"
    message = payload["message"]   # a program reads it: no Markdown escapes to show as they are (`22\:30`)
    assert "- ⛔ suspended: aurora/fp8 of m/x until 2026-11-30T22:30:00Z (rung 1): 2 failed rounds <img" in message
    assert "[click](http://evil.example) @everyone second line" in message   # one decision, one line
    assert "language: fail: leading garbage: '_,**x**'" in message and "\\" not in message
    assert not (tmp_path / "audit.jsonl").exists()


def test_a_service_that_renders_markdown_gets_it_escaped(tmp_path: Path) -> None:
    with receiving() as hook:   # the deprecated webhook: Slack-compatible chats (Mattermost, Rocket.Chat)
        notify.notify(record_of(DOC), audit_path=tmp_path / "a.jsonl",
                      env={WEBHOOK_ENV: f"http://127.0.0.1:{hook.port}/"}, sleep=lambda _: None, echo=lambda _: None)
    text = hook.requests[0].json()["text"]
    assert "**suspended**: aurora/fp8 of m/x until 2026-11-30T22\\:30\\:00Z (rung 1)" in text
    assert "\\<img src=x onerror=alert\\(1\\)\\>" in text and "<img" not in text.replace("\\<img", "")
    assert "\\[click\\]\\(http\\:" in text and "\\@everyone" in text
    assert "language: fail: leading garbage\\: '\\_,\\*\\*x\\*\\*'" in text


def test_ntfy_pointed_at_a_local_server_gets_topic_title_and_message(tmp_path: Path) -> None:
    with receiving() as ntfy:
        assert _send([f"ntfy://127.0.0.1:{ntfy.port}/canary-alerts"], tmp_path / "a.jsonl") == []
    [request] = ntfy.requests
    payload = request.json()
    assert payload["topic"] == "canary-alerts" and payload["title"] == "canary: 1 suspended, 1 restored"
    assert "aurora/fp8 of m/x until 2026-11-30T22:30:00Z" in payload["message"]   # ntfy shows text as it is


def test_email_through_a_local_smtp_server_carries_no_raw_html_from_upstream(tmp_path: Path) -> None:
    with smtp_receiving() as smtp:
        url = f"mailto://127.0.0.1:{smtp.port}?from=canary@example.org&to=ops@example.org&mode=insecure"
        assert _send([url], tmp_path / "a.jsonl") == []
    [(sender, recipients, mail)] = smtp.messages
    assert sender == "canary@example.org" and recipients == ["ops@example.org"]
    assert mail["Subject"] == "canary: 1 suspended, 1 restored"
    parts = {p.get_content_type(): p.get_payload(decode=True).decode() for p in mail.walk() if not p.is_multipart()}
    assert "&lt;img src=x onerror=alert(1)&gt;" in parts["text/html"] and "<img" not in parts["text/html"]
    assert '<a href="http://evil' not in parts["text/html"]
    assert "aurora/fp8 of m/x" in parts["text/plain"]


def test_several_urls_from_one_list_each_get_the_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with receiving() as first, receiving() as second:
        env = {NOTIFY_URLS_ENV: f"json://127.0.0.1:{first.port}/a, ntfy://127.0.0.1:{second.port}/b"}
        notify.notify(record_of(DOC), audit_path=tmp_path / "a.jsonl", env=env,
                      sleep=lambda _: None, echo=lambda _: None)
    assert len(first.requests) == 1 and len(second.requests) == 1


def test_the_deprecated_webhook_url_still_gets_the_slack_compatible_text_post(tmp_path: Path) -> None:
    with receiving() as hook:
        env = {WEBHOOK_ENV: f"http://127.0.0.1:{hook.port}/services/T000/B000/{TOKEN}?channel=ops"}
        notify.notify(record_of(DOC), audit_path=tmp_path / "a.jsonl", env=env,
                      sleep=lambda _: None, echo=lambda _: None)
    [request] = hook.requests
    assert request.path == f"/services/T000/B000/{TOKEN}?channel=ops"
    payload = request.json()
    assert list(payload) == ["text"]
    assert payload["text"].startswith("canary: 1 suspended, 1 restored\nRound r-1")


def test_a_slack_webhook_url_goes_to_apprises_slack_plugin_and_a_plain_url_to_json() -> None:
    slack = "https://hooks.slack.com/services/T1JJ3T3L2/A1BRTD4JD/TIiajkdnlazkcOXrIdevi7F"
    [target] = notifications.targets({WEBHOOK_ENV: slack})
    assert (target.url, target.legacy) == (slack, False)
    [target] = notifications.targets({WEBHOOK_ENV: "https://chat.example.org/hooks/abc"})
    assert target.legacy and target.url.startswith("jsons://chat.example.org/hooks/abc?:message=text")


def test_a_failing_webhook_is_retried_then_delivered(tmp_path: Path) -> None:
    with receiving(503, 200) as hook:
        assert _send([f"json://127.0.0.1:{hook.port}/x"], tmp_path / "a.jsonl") == []
    assert len(hook.requests) == 2
    assert not (tmp_path / "a.jsonl").exists()


def test_a_5xx_to_the_end_is_recorded_in_the_audit_log_without_any_secret(tmp_path: Path) -> None:
    printed: list[str] = []
    audit = tmp_path / "audit.jsonl"
    with receiving(502) as hook:
        url = f"json://canary:{PASSWORD}@127.0.0.1:{hook.port}/hooks/{TOKEN}?-key={TOKEN}x"
        [failure] = _send([url], audit, printed)
    assert len(hook.requests) == notifications.ATTEMPTS
    [line] = _audit(audit)
    assert line["action"] == "webhook_failed" and line["round_id"] == "r-1" and line["model"] == "*"
    assert line["reason"].startswith(f"{NOTIFY_URLS_ENV} #1 (json): not delivered after 3 attempt(s)")
    assert "502" in line["reason"]
    shown = audit.read_text() + "\n".join(printed)
    assert TOKEN not in shown and PASSWORD not in shown and "127.0.0.1:" not in shown
    assert failure.target == f"{NOTIFY_URLS_ENV} #1 (json)"


def test_a_refused_connection_is_recorded_and_never_raises(tmp_path: Path) -> None:
    audit = tmp_path / "audit.jsonl"
    [failure] = _send([f"json://127.0.0.1:{closed_port()}/hooks/{TOKEN}"], audit, attempts=2)
    assert failure.attempts == 2
    [line] = _audit(audit)
    assert "connection" in line["reason"].lower() and TOKEN not in audit.read_text()


def test_a_receiver_that_never_answers_times_out_and_is_recorded(tmp_path: Path) -> None:
    audit = tmp_path / "audit.jsonl"
    with receiving(HANG) as hook:
        [failure] = _send([f"json://127.0.0.1:{hook.port}/{TOKEN}?rto=0.3&cto=0.3"], audit, attempts=2)
    assert len(hook.requests) == 2 and failure.attempts == 2
    assert _audit(audit)[0]["action"] == "webhook_failed" and TOKEN not in audit.read_text()


def test_one_failing_url_does_not_stop_the_others_and_is_named_by_position(tmp_path: Path) -> None:
    audit = tmp_path / "audit.jsonl"
    with receiving(500) as bad, receiving() as good:
        failures = _send([f"json://127.0.0.1:{bad.port}/", f"json://127.0.0.1:{good.port}/"], audit)
    assert [f.target for f in failures] == [f"{NOTIFY_URLS_ENV} #1 (json)"]
    assert len(good.requests) == 1 and len(bad.requests) == 3


def test_a_url_apprise_does_not_understand_is_recorded_and_the_rest_still_sent(tmp_path: Path) -> None:
    audit = tmp_path / "audit.jsonl"
    with receiving() as good:
        failures = _send([f"nonsense://{TOKEN}@example.org/", f"json://127.0.0.1:{good.port}/"], audit)
    assert [(f.target, f.attempts) for f in failures] == [(f"{NOTIFY_URLS_ENV} #1 (nonsense)", 0)]
    assert "not a URL Apprise understands" in _audit(audit)[0]["reason"] and TOKEN not in audit.read_text()
    assert len(good.requests) == 1


def test_a_round_without_decisions_sends_nothing(tmp_path: Path) -> None:
    with receiving() as hook:
        assert _send([f"json://127.0.0.1:{hook.port}/"], tmp_path / "a.jsonl", doc={**DOC, "decisions": []}) == []
    assert hook.requests == []


def test_apprise_warnings_reach_no_log_handler_unscrubbed(tmp_path: Path, caplog: pytest.LogCaptureFixture,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    caplog.set_level(logging.DEBUG)
    _send([f"json://127.0.0.1:{closed_port()}/{TOKEN}", f"tgram://{TOKEN}/"], tmp_path / "a.jsonl", attempts=1)
    captured = capsys.readouterr()
    assert TOKEN not in caplog.text + captured.out + captured.err


def test_a_secret_from_the_environment_never_reaches_a_message(tmp_path: Path) -> None:
    key = "sk-or-v1-" + "0123456789abcdef" * 4
    doc = {**DOC, "decisions": [{**DOC["decisions"][0], "reason": f"upstream echoed {key}"}]}
    with receiving() as hook:
        notifications.send(record_of(doc), [f"json://127.0.0.1:{hook.port}/"], tmp_path / "a.jsonl",
                           sleep=lambda _: None, echo=lambda _: None, env={"OPENROUTER_API_KEY": key})
    assert key not in hook.requests[0].body.decode()
    assert "upstream echoed [redacted]" in hook.requests[0].json()["message"]


def test_targets_can_be_given_as_targets_or_strings(tmp_path: Path) -> None:
    with receiving() as hook:
        target = Target(f"json://127.0.0.1:{hook.port}/", 7, WEBHOOK_ENV)
        assert _send([target], tmp_path / "a.jsonl") == []
    assert len(hook.requests) == 1
