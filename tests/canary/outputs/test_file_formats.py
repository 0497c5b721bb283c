"""docs/file-formats.md's field tables are the records' own fields: generated, never hand-kept."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from canary.outputs.file_formats import BLOCKS, generated, rewrite
from core.field_rules import written
from core.results import AttemptResult, CaseResult, ControlNote, ModelEntry, RoundResults
from core.vocabulary import Outcome
from judge.suspension.card import Card
from judge.suspension.decisions import Action, Decision, Evidence, RoundDecisions, Rule

PAGE = Path(__file__).resolve().parents[3] / "docs" / "file-formats.md"
AT = datetime(2026, 11, 29, 22, 30, tzinfo=UTC)


def test_the_page_holds_exactly_the_generated_tables() -> None:
    page = PAGE.read_text(encoding="utf-8")
    for name in BLOCKS:
        assert f"<!-- generated: {name} -->" in page
    assert rewrite(page) == page, "run `python -m canary.outputs.file_formats docs/file-formats.md`"


def keys_of(block: str) -> set[str]:
    return {line.split("`")[1] for line in generated(block).splitlines() if line.startswith("| `")}


def written_keys(doc: object) -> set[str]:
    """Every key of a JSON document, at any depth (the maps keyed by model or tag excepted)."""
    if isinstance(doc, dict):
        return {k for k, v in doc.items() for k in (k, *written_keys(v))}
    if isinstance(doc, list):
        return {k for item in doc for k in written_keys(item)}
    return set()


@pytest.mark.parametrize(("block", "doc", "maps"), [
    ("results-json", RoundResults(
        round_id="r-1", started_at=AT, models={"m/x": ModelEntry(("a/fp8",))},
        cases=(CaseResult(model="m/x", provider="a/fp8", contract="latency", outcome=Outcome.PASS, code="pass",
                          reason="ok", attempts=(AttemptResult(outcome=Outcome.PASS, code="pass", reason="ok"),)),),
        weak_probes=(ControlNote("m/x", "refusal", "c/fp8", "passed"),)), {"m/x", "a/fp8"}),
    ("decisions-json", RoundDecisions(
        round_id="r-1", mode="observe", now=AT, ignore={"m/x": ()},
        decisions=(Decision("m/x", "a/fp8", Action.WOULD_SUSPEND, Rule.FAILED_STREAK, "r", until=AT, rung=1,
                            evidence=(Evidence("latency", "fail", "slow"),),
                            card=(Card("latency", 2, 2, (0.3, 1.0), 0, 8, (0.0, 0.3), 4, 0.02),)),)), {"m/x"}),
], ids=["results-json", "decisions-json"])
def test_every_key_the_record_writes_has_a_row(block: str, doc: object, maps: set[str]) -> None:
    assert written_keys(json.loads(json.dumps(written(doc)))) - maps - {"providers"} <= keys_of(block)
