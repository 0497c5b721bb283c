"""Pure parts of the plugin: case ids, the start order, result mapping, the table."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import core.results_read
from core.field_rules import written
from core.results import CaseResult, Incomplete, IncompleteKind, ModelEntry, RoundResults
from core.results_read import read_results
from core.vocabulary import Outcome
from probes.http.records import Endpoint
from probes.pytest_plugin.table import render
from probes.round.cases import Case, CaseRecord, DiscoveryCase, ProbedCase
from probes.round.controls import controls_to_keep
from probes.round.lifecycle import start_order
from probes.round.planning import DiscoveryFailure, RoundPlan, assign_languages, read_plan
from probes.round.record import build_results


def ep(tag: str) -> Endpoint:
    return Endpoint(model="m/x", provider=tag, provider_name=tag, quantization=None, supported_parameters=(),
                    prompt_price=0.0, completion_price=0.0, context_length=None, max_completion_tokens=None, status=0)


def test_case_ids_have_the_fixed_readable_form() -> None:
    case = Case(model="deepseek/deepseek-chat-v3-0324", contract="latency", endpoint=ep("aurora/fp8"))
    assert case.id == "deepseek/deepseek-chat-v3-0324::aurora/fp8::latency"


def test_the_round_starts_the_controls_then_the_slowest_listed_endpoints() -> None:
    def case(tag: str, tps: float | None, control: bool = False) -> Case:
        listed = Endpoint(model="m/x", provider=tag, provider_name=tag, quantization=None, supported_parameters=(),
                          prompt_price=0.0, completion_price=0.0, context_length=None, max_completion_tokens=None,
                          status=0, throughput_p50=tps)
        return Case(model="m/x", contract="refusal" if control else "latency", endpoint=listed, control=control)

    fast, slow, unlisted, control = case("fast/1", 80.0), case("slow/1", 20.0), case("new/1", None), \
        case("filter/1", 90.0, control=True)
    ordered = sorted([fast, slow, unlisted, control], key=start_order)
    assert [c.provider for c in ordered] == ["filter/1", "new/1", "slow/1", "fast/1"]


def test_languages_follow_the_plan_else_rotate_by_sorted_tag() -> None:
    eps = (ep("b/1"), ep("a/1"), ep("c/1"))
    assert assign_languages("m/x", eps, ("pt", "es"), {}) == {"a/1": "pt", "b/1": "es", "c/1": "pt"}
    assert assign_languages("m/x", eps, ("pt", "es"), {"c/1": "es", "b/1": "xx"})["c/1"] == "es"


def test_a_failed_discovery_is_a_case_of_its_own_listed_first_with_the_documented_id() -> None:
    plan = RoundPlan.of({"m/x": (ep("a/1"),)},
                     failures=(DiscoveryFailure("m/y", "HTTP 401: bad key", auth=True),))
    first, *probed = plan.cases()
    assert isinstance(first, DiscoveryCase) and (first.id, first.marker) == ("m/y::discovery", "discovery")
    assert first.auth_error and first.message == "HTTP 401: bad key" and first.title == "m/y · discovery"
    assert all(isinstance(c, Case) for c in probed) and "discovery" not in {c.contract for c in probed}
    assert read_plan(written(plan)).cases() == plan.cases()


def test_the_round_plan_round_trips_through_json() -> None:
    plan = RoundPlan.of({"m/x": (ep("a/1"),)}, languages={"m/x": {"a/1": "pt"}},
                     controls={"m/x": ("a/1",)})
    again = read_plan(written(plan))
    assert again == plan and [c.id for c in again.cases()] == [c.id for c in plan.cases()]
    assert [c.control for c in again.cases()] == [False, True, False, False]


def _head(**fields: Any) -> RoundResults:
    return RoundResults(round_id="r1", started_at=datetime(2026, 11, 30, 10, tzinfo=UTC),
                        finished_at=datetime(2026, 11, 30, 10, 1, tzinfo=UTC), upstream="simulator",
                        models={"m/x": ModelEntry(("a/1",))}, **fields)


def test_usage_is_summed_per_provider_and_an_incomplete_round_says_why() -> None:
    entry = CaseResult(model="m/x", provider="a/1", contract="latency", outcome=Outcome.PASS, code="pass", reason="",
                       requests=1, prompt_tokens=10, completion_tokens=5, cost_usd=0.001, ttft_s=0.2)
    results = build_results(_head(incomplete=(Incomplete(IncompleteKind.INTERRUPTED, "the round was interrupted"),)),
                            [CaseRecord(entry), CaseRecord(entry)])
    doc = written(results)
    assert doc["usage"]["m/x"]["a/1"] == {"requests": 2, "prompt_tokens": 20, "completion_tokens": 10,
                                          "cost_usd": 0.002}
    assert doc["complete"] is False and doc["incomplete_reason"] == "the round was interrupted"
    assert doc["incomplete"] == [{"kind": "interrupted", "detail": "the round was interrupted"}]
    assert read_results(doc) == results  # what is written reads back the same
    lines = render(results)
    assert any("a/1" in ln and "0.20s" in ln for ln in lines) and lines[-1].startswith("!!! ROUND INCOMPLETE")


# -- the positive control kept through -k/-m (issue 20 item 5) --------------------------------

def _case(model: str, tag: str, contract: str, control: bool = False) -> Case:
    ep = Endpoint(model=model, provider=tag, provider_name=tag.split("/")[0], quantization="fp8",
                  supported_parameters=("max_tokens",), prompt_price=0.0, completion_price=0.0,
                  context_length=None, max_completion_tokens=None, status=0)
    return Case(model=model, contract=contract, endpoint=ep, control=control)


def test_a_selected_refusal_case_keeps_its_models_control_and_only_that() -> None:
    control, other_control = _case("m/x", "filter/fp8", "refusal", True), _case("m/y", "filter/fp8", "refusal", True)
    planned = [control, other_control, _case("m/x", "ok/fp8", "refusal"), _case("m/x", "ok/fp8", "latency"),
               _case("m/y", "ok/fp8", "latency")]
    assert controls_to_keep([planned[2], planned[3], planned[4]], planned) == [control]
    assert controls_to_keep([planned[3], planned[4]], planned) == []        # -m latency: no control needed
    assert controls_to_keep([control, planned[2]], planned) == []           # selected already


def test_the_round_owner_builds_its_record_from_the_cases_it_holds_without_parsing_them(monkeypatch) -> None:
    # Files only at process boundaries: the lenient reader of results.json is for files, not for
    # the cases this process already holds as records.
    def refused(*_: object) -> None:
        raise AssertionError("the record was parsed instead of taken as it is")

    monkeypatch.setattr(core.results_read, "read_case", refused)
    monkeypatch.setattr(core.results_read, "read_results", refused)
    case = _case("m/x", "a/1", "refusal", control=True)
    probed = ProbedCase.of(case, Outcome.PASS, "pass", "").restated(
        Outcome.FAIL, "control_missed", "control missed: the known filter passed", raw_outcome=Outcome.PASS)
    results = build_results(_head(), [CaseRecord(probed.record)])
    assert results.cases == (probed.record,) and [w.control for w in results.weak_probes] == ["a/1"]
