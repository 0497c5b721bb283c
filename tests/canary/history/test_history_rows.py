"""A judged round becomes rows and files, and reads back unchanged (canary/history rows, files)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from history_support import MODEL, PROVIDERS, REASONS, T0, detailed
from hypothesis import given
from hypothesis import strategies as st
from summary_data import record_of

from canary.history.aggregate import CLEAN, FAILED, FROZEN, aggregate_day, endpoint_rounds
from canary.history.codec import pack
from canary.history.files import decode_day, decode_round, encode_day, encode_round, round_document
from canary.history.rows import CaseRow, HistoryError, RoundRecord, round_record, tokens_per_second
from core.results import AttemptResult
from core.results_read import read_results
from core.vocabulary import Outcome
from judge.suspension.decisions import RoundDecisions

BAD = PROVIDERS[0]


def decisions_of(doc: dict[str, object]) -> RoundDecisions:
    return record_of({"round_id": doc["round_id"], "mode": "enforce", "decisions": [
        {"model": MODEL, "provider": BAD, "action": "suspend", "rule": "failed_streak", "reason": "2 failed rounds",
         "until": "2026-11-30T22:00:00Z", "rung": 1,
         "evidence": [{"contract": "structured", "outcome": "fail", "reason": REASONS["structured"]}]}]})


def test_a_round_keeps_every_case_with_its_code_timings_tokens_and_cost() -> None:
    doc = detailed({BAD: "fail"}, ttft={BAD: 1.25})
    record = round_record(read_results(doc), decisions_of(doc))
    assert record.round_id == doc["round_id"] and record.started_at == T0 and record.mode == "enforce"
    assert len(record.cases) == len(PROVIDERS) * 4
    bad = next(r for r in record.cases if r.provider == BAD and r.contract == "structured")
    assert (bad.outcome, bad.code, bad.ttft_s, bad.duration_s) == ("fail", "schema_violation", 1.25, 3.25)
    assert (bad.prompt_tokens, bad.completion_tokens, bad.cost_usd, bad.served_by) == (100, 100, 0.0001, "Aurora")
    assert bad.tokens_per_s == 50.0 and bad.reason == REASONS["structured"]
    good = next(r for r in record.cases if r.provider == PROVIDERS[1] and r.contract == "language")
    assert good.code == "pass" and good.reason is None and good.language == "pt"
    [decision] = record.decisions
    assert decision.action == "suspend" and decision.evidence[0][0] == "structured"


def test_a_round_reads_back_from_its_file_unchanged() -> None:
    doc = detailed({BAD: "fail", PROVIDERS[1]: "transport_error"}, ttft={BAD: 0.4567})
    record = round_record(read_results(doc), decisions_of(doc))
    assert decode_round(encode_round(record), "f") == record


def test_the_file_of_a_round_is_the_same_bytes_every_time() -> None:
    doc = detailed({BAD: "fail"})
    assert encode_round(round_record(read_results(doc))) == encode_round(round_record(read_results(doc)))


@given(st.lists(st.tuples(
    st.sampled_from(["pass", "fail", "inconclusive", "transport_error", "not_applicable"]),
    st.one_of(st.none(), st.floats(min_value=0, max_value=120, allow_nan=False)),
    st.integers(min_value=0, max_value=10_000),
    st.floats(min_value=0, max_value=5, allow_nan=False),
    st.text(max_size=30)), min_size=1, max_size=12))
def test_any_case_values_survive_the_round_trip(cases: list[tuple[str, float | None, int, float, str]]) -> None:
    doc = detailed(providers=(BAD,))
    doc["cases"] = [{"model": MODEL, "provider": BAD, "contract": f"c{i}", "outcome": o, "reason": reason,
                     "ttft_s": ttft, "duration_s": None if ttft is None else ttft + 1, "completion_tokens": tokens,
                     "cost_usd": cost, "served_by": reason or None,
                     "attempts": [{"ttft_s": ttft, "total_s": None if ttft is None else ttft + 1}]}
                    for i, (o, ttft, tokens, cost, reason) in enumerate(cases)]
    record = round_record(read_results(doc))
    assert decode_round(encode_round(record), "f") == record


def test_decisions_of_another_round_are_refused() -> None:
    doc = detailed()
    with pytest.raises(HistoryError, match="not of"):
        round_record(read_results(doc), record_of({"round_id": "another-round", "decisions": []}))


def test_cases_with_unsafe_tags_are_left_out_and_counted() -> None:
    doc = detailed(providers=(BAD,))
    doc["cases"].append({"model": MODEL, "provider": "x;rm -rf ~", "contract": "latency", "outcome": "fail"})
    record = round_record(read_results(doc))
    assert record.skipped == 1 and all(r.provider == BAD for r in record.cases)


@pytest.mark.parametrize("tokens,attempts,expected", [
    (100, [{"ttft_s": 0.5, "total_s": 2.5}], 50.0),
    (90, [{"ttft_s": 0.5, "total_s": 1.5}, {"ttft_s": 0.2, "total_s": 2.2}], 30.0),
    (100, [{"ttft_s": None, "total_s": 2.5}], None),
    (0, [{"ttft_s": 0.5, "total_s": 2.5}], None),
    (100, [{"ttft_s": 0.5, "total_s": 0.52}], None),
], ids=["one-request", "confirmations-summed", "no-first-token", "no-tokens", "one-chunk"])
def test_tokens_per_second_is_measured_only_when_it_means_something(
        tokens: int, attempts: list[dict[str, float | None]], expected: float | None) -> None:
    replies = [AttemptResult(outcome=Outcome.PASS, code="pass", reason="", **a) for a in attempts]
    assert tokens_per_second(tokens, replies) == expected


def test_endpoint_rounds_are_failed_clean_or_frozen_and_controls_do_not_count() -> None:
    doc = detailed({BAD: "fail", PROVIDERS[1]: "inconclusive", PROVIDERS[2]: {"structured": "missing"}})
    doc["cases"].append({"model": MODEL, "provider": PROVIDERS[3], "contract": "refusal", "outcome": "fail",
                         "reason": "control missed: ...", "control": True})
    classes = {e.provider: e.klass for e in endpoint_rounds(round_record(read_results(doc)))}
    assert classes == {BAD: FAILED, PROVIDERS[1]: FROZEN, PROVIDERS[2]: FROZEN, PROVIDERS[3]: CLEAN,
                       PROVIDERS[4]: CLEAN}


def test_a_day_aggregate_reads_back_and_merging_a_round_twice_changes_nothing() -> None:
    records = [round_record(read_results(detailed({BAD: "fail"}, at=T0.replace(hour=h)))) for h in (1, 2, 3)]
    day = aggregate_day("2026-11-29", records)
    assert decode_day(encode_day(day), "d") == day
    assert aggregate_day("2026-11-29", records[:1], day) == day
    assert day.classes[(MODEL, BAD)] == {FAILED: 3}
    group = next(g for g in day.groups if g.provider == BAD and g.contract == "structured")
    assert group.outcomes == {"fail": 3} and group.codes == {"schema_violation": 3}


def test_a_damaged_file_is_named_with_what_to_do() -> None:
    data = bytearray(encode_round(round_record(read_results(detailed()))))
    data[len(data) // 2] ^= 0xFF
    with pytest.raises(HistoryError, match=r"rounds/x\.xz: damaged history file .*restore it from git"):
        decode_round(bytes(data), "rounds/x.xz")


def test_a_file_of_a_newer_format_is_refused_not_guessed() -> None:
    from canary.history.codec import pack
    with pytest.raises(HistoryError, match="newer than this canary reads"):
        decode_round(pack({"kind": "round", "version": 99}), "f")


def test_a_round_with_bare_cases_reads_back() -> None:
    row = CaseRow(MODEL, BAD, "latency", "pass", "pass")
    record = RoundRecord("r", datetime(2026, 1, 1, tzinfo=UTC), None, True, None, None, {}, (row,))
    assert decode_round(encode_round(record), "f") == record


def test_the_database_classes_endpoints_as_the_aggregates_do() -> None:
    from canary.history import db
    from canary.history.files import decode_round_columns

    doc = detailed({BAD: "fail", PROVIDERS[1]: "inconclusive", PROVIDERS[2]: {"structured": "missing"},
                    PROVIDERS[4]: {"structured": "not_applicable"}})
    doc["cases"].append({"model": MODEL, "provider": PROVIDERS[3], "contract": "refusal", "outcome": "fail",
                         "reason": "control missed: ...", "control": True})
    record = round_record(read_results(doc))
    conn = db.build([decode_round_columns(encode_round(record), "f")], [])
    db.prepare_endpoints(conn)
    in_sql = {(m, p): (k, tuple(sorted(c.split()))) for m, p, k, c in
              conn.execute("SELECT model, provider, klass, codes FROM endpoint_rounds")}
    assert in_sql == {(e.model, e.provider): (e.klass, e.codes) for e in endpoint_rounds(record)}


@pytest.fixture
def local_time_new_york(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """This process's local time zone is New York's for the test (UTC-5 in late November)."""
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.usefixtures("local_time_new_york")
def test_a_naive_time_in_a_round_file_means_utc_not_the_machines_local_time() -> None:
    doc = round_document(round_record(read_results(detailed({BAD: "fail"}))))
    doc["started_at"], doc["finished_at"] = "2026-11-29T22:30:00", "2026-11-29T22:31:00.250000"
    record = decode_round(pack(doc), "f")
    assert record.started_at == datetime(2026, 11, 29, 22, 30, tzinfo=UTC)
    assert record.finished_at == datetime(2026, 11, 29, 22, 31, 0, 250000, tzinfo=UTC)


def test_a_history_document_is_read_as_its_declaration_naming_the_file_and_the_key() -> None:
    from canary.history.codec import pack

    doc = round_document(round_record(read_results(detailed({BAD: "fail"}))))
    later = decode_round(pack({**doc, "added_by_a_later_version": [1]}), "f")  # canary writes it: tolerant
    assert later == decode_round(pack(doc), "f")
    with pytest.raises(HistoryError, match=r"^rounds/x\.xz: skipped: expected a whole number, got '2'$"):
        decode_round(pack({**doc, "skipped": "2"}), "rounds/x.xz")
    with pytest.raises(HistoryError, match=r"^rounds/x\.xz: decisions\[0\]\.rung: expected a whole number or null"):
        decode_round(pack({**doc, "decisions": [{"model": MODEL, "provider": BAD, "action": "suspend",
                                                 "rule": "failed_streak", "reason": "r", "rung": "1"}]}),
                     "rounds/x.xz")
    with pytest.raises(HistoryError, match=r"^rounds/x\.xz: not a day file$"):
        decode_day(pack(doc), "rounds/x.xz")
