"""The backend's users' reports: one per reply, counted in their window's record, never their words; sent to
OpenRouter when asked (issue 40 item 2)."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from provider_ignore.production import CATEGORIES, Exporter, feedback
from simulator import scenario_from_dict, start_simulator

MODEL = "deepseek/deepseek-chat-v3-0324"
T = datetime(2026, 12, 6, 14, 0, tzinfo=UTC)
HALF = timedelta(minutes=30)
KEY = "sk-or-v1-management-key-0123456789abcdef"


def started(**kw: object) -> Exporter:
    exporter = Exporter("chat-eu-1", sample_rate=0.05, **kw)  # type: ignore[arg-type]
    assert exporter.records(now=T) == []   # the backend starts at T: its first window
    return exporter


def reports(record: object) -> list[tuple[str, str | None, int]]:
    return [(c.model, c.provider, c.n) for c in record.reports]  # type: ignore[attr-defined]


def test_a_reply_reported_twice_counts_once_and_a_report_late_for_its_window_goes_into_the_next():
    exporter = started()

    kept = [exporter.report(g, model=MODEL, provider=p, at=T + timedelta(minutes=m), category="incoherence")
            for g, p, m in (("gen-1", "DeepInfra", 1), ("gen-1", "DeepInfra", 2), ("gen-2", "DeepInfra", 10),
                            ("gen-3", "Not\na name", 12), ("gen-4", "Chutes", 40))]
    (first,) = exporter.records(now=T + HALF + timedelta(minutes=1))
    exporter.report("gen-5", model=MODEL, provider="Chutes", at=T + timedelta(minutes=25), category="other")  # late
    second = exporter.records(now=T + 2 * HALF + timedelta(minutes=1))[-1]

    assert kept == [True, False, True, True, True]
    assert reports(first) == [(MODEL, None, 1), (MODEL, "DeepInfra", 2)]
    assert reports(second) == [(MODEL, "Chutes", 2)] and second.window_start == T + HALF


def test_a_category_outside_openrouters_list_is_refused():
    with pytest.raises(ValueError, match="one of latency"):
        started().report("gen-1", model=MODEL, provider="DeepInfra", at=T, category="rude")
    assert "incorrect_response" in CATEGORIES


def test_forwarding_posts_openrouters_feedback_and_a_refused_one_keeps_the_report(caplog):
    endpoint = {"tag": "deepinfra/fp8", "provider_name": "DeepInfra", "behaviour": {"ttft_ms": 0}}
    with start_simulator(scenario_from_dict({"models": [{"id": MODEL, "endpoints": [endpoint]}]})) as sim:
        body = {"model": MODEL, "messages": [{"role": "user", "content": "Hi"}], "stream": False}
        gen_id = httpx.post(f"{sim.base_url}/chat/completions", json=body,
                            headers={"Authorization": f"Bearer {KEY}"}, timeout=10).json()["id"]
        exporter = started(forward=feedback(sim.base_url, KEY))

        with caplog.at_level(logging.WARNING):
            assert exporter.report(gen_id, model=MODEL, provider="DeepInfra", at=T, category="formatting",
                                   comment="broken markdown")
            assert exporter.report("gen-0-unknown", model=MODEL, provider="DeepInfra", at=T, category="other")
        posted = [r.body for r in sim.received if r.path.endswith("/generation/feedback")]

    assert posted == [{"generation_id": gen_id, "category": "formatting", "comment": "broken markdown"},
                      {"generation_id": "gen-0-unknown", "category": "other"}]
    assert reports(exporter.records(now=T + HALF)[0]) == [(MODEL, "DeepInfra", 2)]
    assert "not sent" in caplog.text and KEY not in caplog.text
