"""Where production evidence lands (issue 39): the round's summary (terminal and job summary), `canary
status` and the status page's endpoint cell, each from the lines the judge kept."""

from __future__ import annotations

from datetime import UTC, datetime

from rules_factories import MODEL, report

from canary.cli.commands.status import render_status
from canary.outputs import summary
from canary.outputs.site.feeds import status_document
from judge.suspension.decisions import RoundDecisions
from judge.suspension.production import STALE, production_lines
from judge.suspension.state import JudgeState, ProviderState

CARD = "production encoding [en, stream]: 32/400 failed (0.06-0.11) vs peers 0/2400 (0-0.0016), p < 1e-12"
FOOTER = "production: sampled at 5 %; exporters' last window: chat-eu-1 2026-11-29T22:00:00Z"
LINES = {"aurora/fp8": (CARD, FOOTER), "borealis/bf16": ("production: no failure in 600 sampled replies", FOOTER)}
NOW = datetime(2026, 11, 29, 22, 5, tzinfo=UTC)


def decisions(production: dict[str, dict[str, tuple[str, ...]]] | None = None) -> RoundDecisions:
    return RoundDecisions(round_id="r-20261129T220000-deepseek", mode="observe", now=NOW,
                          production={MODEL: LINES} if production is None else production)


def test_the_round_prints_the_cards_to_read_and_the_sample_once() -> None:
    text = summary.to_text(report(), decisions())
    tail = text[text.index("production evidence"):].splitlines()
    assert tail == ["production evidence (a chat backend's sampled replies):", f"  aurora/fp8: {CARD}",
                    f"  {MODEL}: {FOOTER}"]
    markdown = summary.to_markdown(report(), decisions())
    assert f"- `aurora/fp8`: `{CARD}`" in markdown and "borealis" not in markdown.split("#### Production")[1][:400]
    assert "production evidence" not in summary.to_text(report(), decisions({}))


def test_status_shows_every_endpoints_lines_then_the_sample_once() -> None:
    state = JudgeState(models={MODEL: {p: ProviderState(production=lines) for p, lines in LINES.items()}})
    text = render_status(state, (), NOW, model=MODEL)
    tail = text[text.index("production evidence"):].splitlines()
    assert tail == ["production evidence (a chat backend's sampled replies):", f"  aurora/fp8     {CARD}",
                    "  borealis/bf16  production: no failure in 600 sampled replies", f"                 {FOOTER}"]


def test_the_status_page_cell_shows_cards_and_a_stale_exporter_only() -> None:
    assert production_lines(LINES["aurora/fp8"]) == [CARD]
    assert production_lines(LINES["borealis/bf16"]) == []
    assert production_lines(("production: no failure in 9 sampled replies", FOOTER + STALE)) == [FOOTER + STALE]


def test_status_json_carries_what_the_page_shows() -> None:
    endpoint = {"provider": "aurora/fp8", "state": "active", "tier": "healthy", "status": "healthy", "until": None,
                "excluded_by": None, "reasons": [], "tier_reasons": [], "last_round_at": None,
                "latency": {"p50": None, "p95": None, "tps": None}, "production": production_lines(LINES["aurora/fp8"])}
    page = {"generated_at": "2026-11-29T22:05:00Z", "newest_round": None, "stale_after_minutes": 90.0,
            "stale_at_generation": True, "models": [{"model": MODEL, "provider_ignore": [], "would_ignore": [],
                                                      "badge": "badges/m.svg", "endpoints": [endpoint]}]}
    assert status_document(page).models[MODEL].endpoints["aurora/fp8"].production == (CARD,)
