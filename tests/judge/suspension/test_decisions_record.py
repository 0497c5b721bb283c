"""The judge's record of a round (decisions.json) reads and writes through one typed codec."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from core.field_rules import written
from judge.suspension.card import Card
from judge.suspension.decisions import (
    Action,
    Decision,
    DecisionsError,
    Evidence,
    RequestRecord,
    RoundDecisions,
    Rule,
    read_round_decisions,
)

# decisions.json files the judge wrote before the record was typed (canary judge on a made-up round).
BEFORE = sorted((Path(__file__).resolve().parents[1] / "data" / "decisions").glob("*.json"))


def as_written(doc: object) -> str:
    """The bytes core.store.atomic_write_json writes for a document."""
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


@pytest.mark.parametrize("path", BEFORE, ids=[p.stem for p in BEFORE])
def test_a_decisions_file_from_before_round_trips_to_the_same_bytes(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    doc = json.loads(text)
    assert doc.pop("reused_shards") == {}  # read and left out: the judge takes one results file since issue 38
    assert as_written(written(read_round_decisions(json.loads(text)))) == as_written(doc)


def test_the_fixtures_hold_a_card_an_expiry_a_plan_and_a_rerun() -> None:
    records = [read_round_decisions(json.loads(p.read_text())) for p in BEFORE]
    [suspend] = [d for r in records for d in r.decisions if d.action is Action.SUSPEND]
    assert suspend.card and suspend.until is not None and suspend.rung == 1 and suspend.evidence
    assert any(r.already_applied for r in records) and any(r.request.expected_models for r in records)


def test_a_record_round_trips_with_weak_cards_and_set_aside_peers() -> None:
    weak = Card("latency", 2, 20, (0.0279, 0.301), 7, 80, (0.0429, 0.1703), 4, 0.54, rounds=20, transport_errors=1,
                inconclusive=2, short=3, set_aside=("fjord/fp16",))
    lonely = Card("refusal", 1, 1, (0.2065, 1.0), 0, 0, (0.0, 0.0), 0, None)
    decision = Decision("m/x", "cinder/fp8", Action.WOULD_SUSPEND, Rule.FAILED_STREAK, "2 failed rounds",
                        until=datetime(2026, 12, 1, 22, 30, 0, 123000, tzinfo=UTC), rung=2,
                        evidence=(Evidence("latency", "fail", "slow", "ttft_exceeded"),
                                  Evidence("refusal", "fail", "x")),   # an older line: no code
                        card=(weak, lonely))
    record = RoundDecisions(
        round_id="r-a+r-b", mode="observe", now=datetime(2026, 11, 30, 22, 30, tzinfo=UTC), gap_minutes=30.5,
        request=RequestRecord(upstream="simulator", expected_models=("m/x",), allow_simulator=True),
        decisions=(decision, Decision("*", "*", Action.INCOMPLETE_ROUND, Rule.INCOMPLETE_ROUND, "cut short")),
        ignore={"m/x": ()}, would_ignore={"m/x": ("cinder/fp8",)})
    doc = json.loads(json.dumps(written(record)))
    assert read_round_decisions(doc) == record
    assert doc["decisions"][0]["weak_evidence"] is True and doc["decisions"][0]["card"][0]["significant"] is False


@pytest.mark.parametrize(("change", "field"), [
    ({"schema_version": 2}, "schema_version: expected one of 1, got 2"),
    ({"now": "yesterday"}, "now: expected an ISO 8601 time like 2026-11-29T22:30:00Z, got 'yesterday'"),
    ({"round_id": 7}, "round_id: expected a string"),
    ({"decisions": {}}, "decisions: expected a list"),
    ({"decisions": [None]}, r"decisions\[0\]: expected a mapping, got None"),
    ({"decisions": [{"model": "m", "provider": "p", "action": "explode", "rule": "manual", "reason": "r"}]},
     r"decisions\[0\]\.action: expected one of suspend, would_suspend, .*, got 'explode'"),
    ({"decisions": [{"model": "m", "provider": "p", "action": "lift", "rule": "manual", "reason": "r",
                     "card": [{"contract": "x"}]}]}, r"decisions\[0\]\.card\[0\]\.failures: required key is missing"),
    ({"ignore": {"m/x": "aurora/fp8"}}, "ignore.m/x: expected a list"),
    ({"gap_minutes": "long"}, "gap_minutes: expected a number"),
])
def test_a_document_of_another_shape_is_refused_naming_the_field(change: dict[str, object], field: str) -> None:
    doc = {**json.loads(BEFORE[0].read_text()), **change}
    with pytest.raises(DecisionsError, match=field):
        read_round_decisions(doc)


def test_every_action_reads_as_its_own_words_with_a_symbol() -> None:
    from judge.suspension.decisions import ENDING, SUSPENDING, Action, action_named

    for action in Action:
        assert action.label and action.label == action.label.lower() and action.symbol.strip(), action
        assert action.heading.startswith(action.label[0].upper() + action.label[1:]), action
        assert action_named(action.value) is action
    assert len({a.label for a in Action}) == len(Action)   # no two actions read alike
    assert action_named("model_wide") is None and action_named("not_suspended") is None
    assert Action.FLOOR_HELD.heading == "Floor held (not suspended: too few endpoints would remain)"
    assert SUSPENDING.isdisjoint(ENDING) and "suspend" in SUSPENDING and "lift" in ENDING   # a file's value is found


def test_a_key_this_version_does_not_know_is_skipped_and_a_bad_card_count_named() -> None:
    doc = json.loads(next(p for p in BEFORE if '"card"' in p.read_text()).read_text())
    assert read_round_decisions({**doc, "later": {"x": 1}}) == read_round_decisions(doc)
    first = next(d for d in doc["decisions"] if "card" in d)
    bad = {**first, "card": [{**first["card"][0], "failures": -1}]}
    with pytest.raises(DecisionsError, match=r"^decisions\[0\]\.card\[0\]\.failures: expected a whole number >= 0"):
        read_round_decisions({**doc, "decisions": [bad]})
