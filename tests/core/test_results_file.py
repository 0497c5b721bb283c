"""results.json's form, declared once (core/results.py: the records are the declaration): the writer
writes the declaration, byte for byte what the hand writer wrote before it; the reader reads each
case and attempt on its own and leniently, each field by its declared rule (core/field_rules.py).

tests/data/results/written.json is what the hand writer (before the declaration) wrote for the
record `_rich()` builds: the probes write results.json, and the judge, history, site and reports
read it, so its bytes stay.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import msgspec
import pytest

from core.field_rules import ReadBy, declared, lenient_entry, measurement, written
from core.results import (
    AttemptResult,
    CaseResult,
    ControlNote,
    Incomplete,
    IncompleteKind,
    ModelEntry,
    ResultsError,
    RoundResults,
)
from core.results_read import read_attempt, read_case, read_results
from core.vocabulary import Outcome

WRITTEN = Path(__file__).parents[1] / "data" / "results" / "written.json"


class _Code(StrEnum):
    NO_TEXT = "no_text"


def _rich() -> RoundResults:
    """A round with every field of the file set, and both kinds of attempt (measured, bare)."""
    attempt = AttemptResult(outcome=Outcome.FAIL, code=_Code.NO_TEXT, reason="completed without any text",
                            ttft_s=0.25, total_s=3, finish_reason="stop", error_kind=None, served_by="Aurora",
                            requests=2, excerpt="caf\u00e9", chars=4, refusal=Outcome.PASS, integrity=Outcome.FAIL,
                            integrity_reason="cut", decode_tps=41.5, advertised_p50_tps=60,
                            advertised_slowest_tps=None, usage_reported=True, prompt_tokens=60, billed_usd=2e-05,
                            listed_usd=0.0, items=(("sum", Outcome.PASS), ("date", Outcome.FAIL)), short=True)
    plain = AttemptResult(outcome=Outcome.PASS, code="pass", reason="")
    case = CaseResult(model="m/x", provider="aurora/fp8", contract="latency", outcome=Outcome.FAIL,
                      code=_Code.NO_TEXT, reason="completed without any text", language="fr", anomaly=True,
                      ttft_s=0.25, duration_s=3.5, requests=3, prompt_tokens=120, completion_tokens=7,
                      cost_usd=4e-05, served_by="Aurora", attempts=(attempt, plain), confirmation=Outcome.FAIL)
    other = CaseResult(model="m/x", provider="borealis/bf16", contract="refusal", outcome=Outcome.PASS, code="pass",
                       reason="", control=True)
    return RoundResults(
        round_id="20261205T080000Z-1", started_at=datetime(2026, 12, 5, 8, 0, tzinfo=UTC),
        finished_at=datetime(2026, 12, 5, 8, 4, 30, tzinfo=UTC), complete=False,
        incomplete=(Incomplete(IncompleteKind.AUTH, "the upstream refused our API key"),),
        upstream="openrouter", models={"m/x": ModelEntry(("aurora/fp8", "borealis/bf16"), limits={
            "aurora/fp8": (131072, None)}, notes=("a note",), names={"aurora/fp8": "Aurora"}), "m/y": ModelEntry()},
        cases=(case, other), weak_probes=(ControlNote("m/x", "refusal", "borealis/bf16", "control passed"),),
        unprobed_controls=(ControlNote("m/y", "refusal", "c/fp8", "no verdict"),), clock="virtual",
        controls_source="canary.yaml")


def _written(record: RoundResults) -> str:
    """As probes/round/record.py writes the file."""
    return json.dumps(written(record), indent=2, ensure_ascii=False) + "\n"


def test_the_declaration_writes_the_bytes_the_hand_writer_wrote() -> None:
    assert _written(_rich()) == WRITTEN.read_text(encoding="utf-8")


def test_the_keys_are_written_in_the_declared_order() -> None:
    doc = written(_rich())
    keys = [f.name for f in declared(RoundResults) if f.name not in ("rejected", "missing")] + ["usage"]
    keys.insert(keys.index("complete") + 1, "incomplete_reason")  # derived, where older readers found it
    assert list(doc) == keys
    assert list(doc["cases"][0]) == [f.name for f in declared(CaseResult)]
    left_out = ("advertised_slowest_tps", "short")  # None (written only when set); the judge's mark
    assert list(doc["cases"][0]["attempts"][0]) == [f.name for f in declared(AttemptResult) if f.name not in left_out]
    assert "short" not in doc["cases"][0]["attempts"][0]  # the judge's mark is not part of the file


def test_what_is_written_reads_back_as_the_same_record() -> None:
    record = _rich()
    again = read_results(json.loads(_written(record)))
    assert again.cases[0].attempts[0] == read_attempt(written(record.cases[0].attempts[0]))
    assert [written(c) for c in again.cases] == [written(c) for c in record.cases]
    assert written(again) == written(record)


def _document(attempt: dict[str, Any] | None = None, **case: Any) -> dict[str, Any]:
    doc = json.loads(WRITTEN.read_text(encoding="utf-8"))
    doc["cases"][0].update(case)
    doc["cases"][0]["attempts"][0].update(attempt or {})
    return doc


HUGE = 10**400
# (field, odd value, what it reads as): each rule of the reader, one value each side of it.
CASE_FIELDS = [
    ("reason", ["a"], "['a']"), ("reason", "bad \ud800", "bad ?"),
    ("language", 3, None), ("language", "fr\ud800", "fr?"),
    ("anomaly", "yes", False), ("anomaly", 1, False), ("control", True, True),
    ("ttft_s", -1, None), ("ttft_s", float("nan"), None), ("ttft_s", float("inf"), None), ("ttft_s", HUGE, None),
    ("ttft_s", True, None), ("ttft_s", "1.5", None), ("ttft_s", 2, 2), ("duration_s", 0.5, 0.5),
    ("requests", -3, 0), ("requests", True, 0), ("requests", 1.0, 0), ("prompt_tokens", 10**20, 10**20),
    ("completion_tokens", "7", 0),
    ("cost_usd", 1e308, 0.0), ("cost_usd", HUGE, 0.0), ("cost_usd", 1000, 1000), ("cost_usd", 1000.5, 0.0),
    ("cost_usd", 0, 0.0), ("cost_usd", float("nan"), 0.0),
    ("served_by", "", None), ("served_by", 5, None), ("served_by", "A\ud800", "A?"),
]
ATTEMPT_FIELDS = [
    ("reason", 5, "5"), ("total_s", -0.1, None), ("total_s", 7, 7),
    ("finish_reason", "", None), ("error_kind", ["x"], None), ("requests", -1, 1), ("requests", None, 1),
    ("excerpt", 5, ""), ("excerpt", None, ""), ("excerpt", "\ud800", "?"), ("chars", -1, None), ("chars", 12, 12),
    ("refusal", "inconclusive", None), ("refusal", "fail", Outcome.FAIL), ("integrity", ["pass"], None),
    ("integrity_reason", 3, ""), ("integrity_reason", None, ""),
    ("decode_tps", None, None), ("decode_tps", "fast", None), ("advertised_p50_tps", 12, 12),
    ("usage_reported", 1, None), ("usage_reported", False, False), ("prompt_tokens", -5, None),
    ("billed_usd", 1e308, None), ("billed_usd", HUGE, None), ("billed_usd", 2, 2), ("listed_usd", -1e-9, None),
    ("items", {"a": "pass", "b": "inconclusive", "c": 1, "d": "fail"}, (("a", Outcome.PASS), ("d", Outcome.FAIL))),
    ("items", ["a"], ()),
]


@pytest.mark.parametrize("field,value,expected", CASE_FIELDS, ids=lambda v: ascii(v)[:20])
def test_an_odd_case_field_reads_by_its_rule_and_the_case_stays(field: str, value: Any, expected: Any) -> None:
    r = read_results(_document(**{field: value}))
    got = getattr(r.cases[0], field)
    assert (got, type(got)) == (expected, type(expected)) and len(r.cases) == 2


@pytest.mark.parametrize("field,value,expected", ATTEMPT_FIELDS, ids=lambda v: ascii(v)[:20])
def test_an_odd_attempt_field_reads_by_its_rule_and_the_attempt_stays(field: str, value: Any, expected: Any) -> None:
    r = read_results(_document({field: value}))
    got = getattr(r.cases[0].attempts[0], field)
    assert (got, type(got)) == (expected, type(expected)) and len(r.cases[0].attempts) == 2


@pytest.mark.parametrize("outcome", [["fail"], {"fail": 1}, None, "exploded"], ids=ascii)
def test_a_case_of_no_known_outcome_is_set_aside_alone(outcome: Any) -> None:
    # A list or an object here used to escape as a TypeError (unhashable) instead of being set aside.
    r = read_results(_document(outcome=outcome))
    assert [c.provider for c in r.cases] == ["borealis/bf16"]
    assert [(x.provider, "unknown outcome" in x.problem) for x in r.rejected] == [("aurora/fp8", True)]


@pytest.mark.parametrize("contract", [5, None, "latnecy", ["refusal"]], ids=ascii)
def test_a_case_of_no_known_contract_is_set_aside_alone(contract: Any) -> None:
    r = read_results(_document(contract=contract))
    assert [c.provider for c in r.cases] == ["borealis/bf16"]
    assert [(x.provider, x.problem) for x in r.rejected] == [
        ("aurora/fp8", f"cases[0]: unknown contract {ascii(contract)}")]


@pytest.mark.parametrize("outcome", [["fail"], {"fail": 1}, None, "exploded"], ids=ascii)
def test_an_attempt_of_no_known_outcome_is_left_out_alone(outcome: Any) -> None:
    r = read_results(_document({"outcome": outcome}))
    assert [a.outcome for a in r.cases[0].attempts] == [Outcome.PASS] and not r.rejected


def test_an_absurd_bill_reads_as_absent_and_is_named() -> None:
    r = read_results(_document({"billed_usd": 1e308}, cost_usd=HUGE))
    assert r.cases[0].cost_usd == 0.0 and r.cases[0].attempts[0].billed_usd is None
    assert [x.problem.split(" ")[0] for x in r.rejected] == ["cases[0].cost_usd", "cases[0].attempts[0].billed_usd"]


def test_a_version_1_file_reads_with_catch_all_codes_and_keeps_its_reasons_words() -> None:
    doc = _document()
    doc["schema_version"] = 1
    for c in doc["cases"]:
        c.pop("code")
        for a in c["attempts"]:
            a.pop("code")
    r = read_results(doc)
    assert [c.code for c in r.cases] == ["fail_other", "pass"]
    assert [a.code for a in r.cases[0].attempts] == ["fail_other", "pass"]
    assert r.cases[0].reason == doc["cases"][0]["reason"] == "completed without any text"


@pytest.mark.parametrize("written, outcome, code", [
    ("schema_mismatch", "fail", "schema_mismatch"),  # the words say otherwise: the code is what counts
    (None, "inconclusive", "inconclusive_other"), ("Not A Code!", "inconclusive", "inconclusive_other"),
    (None, "transport_error", "transport_other"), (None, "pass", "pass"),
])
def test_a_version_2_file_is_read_by_its_codes_never_by_its_words(written: str | None, outcome: str,
                                                                   code: str) -> None:
    doc = _document(outcome=outcome, code=written, reason="tools: prose instead of a call")
    assert read_results(doc).cases[0].code == code


class _Made(msgspec.Struct, frozen=True, kw_only=True):
    """A made-up entry: one field by its type, one by a rule, one given."""

    count: int = 1
    seconds: Annotated[float | None, ReadBy(measurement)] = None
    name: str


@pytest.mark.parametrize("raw,expected", [
    ({"count": 3, "seconds": 1.5}, _Made(count=3, seconds=1.5, name="n")),
    ({"count": "3", "seconds": -1}, _Made(name="n")),          # no "3" read as 3; the rule's None is the default
    ({"count": True, "unknown": 1}, _Made(name="n")),           # no true read as 1; an unknown key skipped
    ({"name": "ignored"}, _Made(name="n")),                     # a given value wins over the file's
])
def test_lenient_entry_reads_each_field_on_its_own(raw: dict[str, Any], expected: _Made) -> None:
    assert lenient_entry(raw, _Made, name="n") == expected


def test_what_is_written_holds_json_types_only() -> None:
    # A case crosses from an xdist worker as written(case) (probes/round/cases.py): a tuple there
    # would read back as no attempts at all.
    def kinds(value: Any) -> set[type]:
        if isinstance(value, dict):
            return {dict}.union(*(kinds(v) for v in value.values()))
        if isinstance(value, (list, tuple)):
            return {type(value)}.union(*(kinds(v) for v in value))
        return {type(value)}
    assert kinds(written(_rich())) <= {dict, list, str, int, float, bool, type(None)}
    case = _rich().cases[0]
    assert read_case(written(case)).attempts == tuple(read_attempt(written(a)) for a in case.attempts)


# The top level: read by RoundResults' declaration (`read_document`), every refusal worded by
# core/schema.py's walk, each upstream entry still read on its own.

def _top(**changes: Any) -> dict[str, Any]:
    doc = json.loads(WRITTEN.read_text(encoding="utf-8"))
    for key, value in changes.items():
        if value is _GONE:
            del doc[key]
        else:
            doc[key] = value
    return doc


class _Gone:
    """A key removed from the file (its repr names the test case the same in every xdist worker)."""

    def __repr__(self) -> str:
        return "<removed>"


_GONE = _Gone()


@pytest.mark.parametrize("changes,message", [
    ({"schema_version": 3}, "schema_version: expected one of 1, 2, got 3"),
    ({"schema_version": True}, "schema_version: expected one of 1, 2, got True"),
    ({"schema_version": _GONE}, "schema_version: required key is missing"),
    ({"round_id": "a b"}, "round_id: expected a round id (letters, digits and ._:+-, no '..', at most 1,024), "
                          "got 'a b'"),
    ({"round_id": "r1\n"}, "round_id: expected a round id"),
    ({"round_id": "a..b"}, "round_id: expected a round id"),
    ({"started_at": "yesterday"}, "started_at: expected an ISO 8601 time like 2026-11-29T22:30:00Z, got 'yesterday'"),
    ({"finished_at": 5}, "finished_at: expected an ISO 8601 time like 2026-11-29T22:30:00Z or null, got 5"),
    ({"complete": "yes"}, "complete: expected true or false, got 'yes'"),
    ({"models": []}, "models: expected a mapping, got []"),
    ({"cases": {}}, "cases: expected a list, got {}"),
    ({"cases": [5]}, "cases[0]: expected a mapping, got 5"),
    ({"weak_probes": None}, "weak_probes: expected a list, got None"),
    ({"unprobed_controls": [[]]}, "unprobed_controls[0]: expected a mapping, got []"),
], ids=lambda v: ascii(v)[:40])
def test_a_top_level_the_judge_cannot_trust_is_refused_naming_the_key(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ResultsError) as refused:
        read_results(_top(**changes), "reports/results.json")
    assert str(refused.value).startswith(f"reports/results.json: {message}")
    assert "\n" not in str(refused.value) and "`" not in str(refused.value)  # the walk's words, not msgspec's


def test_a_model_entry_without_its_list_of_endpoints_is_refused() -> None:
    doc = _top()
    doc["models"]["m/x"] = {"providers": "aurora/fp8"}
    with pytest.raises(ResultsError, match=r"^models\.m/x\.providers: expected a list of endpoint tags, "):
        read_results(doc)


@pytest.mark.parametrize("changes,read", [
    ({"upstream": "a b"}, lambda r: r.upstream is None),
    ({"upstream": 7}, lambda r: r.upstream is None),
    ({"clock": "sundial"}, lambda r: r.clock == "real"),
    ({"clock": _GONE}, lambda r: r.clock == "real"),
    ({"controls_source": 3}, lambda r: r.controls_source is None),
    ({"usage": "whatever"}, lambda r: r.usage == read_results(_top()).usage),  # derived, never read
    ({"incomplete": [{"kind": "solar_flare", "detail": "x"}]},
     lambda r: [(i.kind, i.detail) for i in r.incomplete] == [(IncompleteKind.UNKNOWN, "x")]),
    # an unreadable list of reasons falls back on the older file's words, so the round keeps its why
    ({"incomplete": [None, 1]}, lambda r: r.incomplete_reason == "the upstream refused our API key"),
    ({"finished_at": None}, lambda r: r.finished_at is None),
    ({"started_at": "2026-12-05T09:00:00+01:00"}, lambda r: r.started_at == datetime(2026, 12, 5, 8, tzinfo=UTC)),
    ({"started_at": "2026-12-05T08:00:00"}, lambda r: r.started_at == datetime(2026, 12, 5, 8, tzinfo=UTC)),
    ({"a_later_key": {"any": "thing"}}, lambda r: r.round_id == "20261205T080000Z-1"),
], ids=lambda v: ascii(v)[:40] if isinstance(v, dict) else "")
def test_a_top_level_key_read_leniently_costs_only_itself(changes: dict[str, Any], read: Any) -> None:
    assert read(read_results(_top(**changes)))


def test_an_unsafe_model_key_is_set_aside_and_the_rest_is_read() -> None:
    doc = _top()
    doc["models"]["$(reboot)"] = {"providers": ["a/b"]}
    r = read_results(doc)
    assert "$(reboot)" not in r.models and "m/x" in r.models
    assert [(x.part, x.provider) for x in r.rejected] == [("models", "*")]
