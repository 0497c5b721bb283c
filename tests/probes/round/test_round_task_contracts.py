"""A whole round with the optional stop and fidelity contracts on: each planted defect on its host."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from round_support import (
    ALL_PARAMS,
    MODEL,
    ProbeRun,
    canary_config,
    endpoint,
    run_round,
    scenario,
)

from core.policy import Policy
from core.results_read import read_results
from core.vocabulary import Outcome
from judge.suspension.round import RoundClass, classify_round
from simulator import scenario_from_dict, start_simulator

WITH_STOP = [*ALL_PARAMS, "stop"]


def host(tag: str, faults: dict[str, object] | None = None, params: list[str] = WITH_STOP) -> dict[str, object]:
    return {**endpoint(tag, faults), "supported_parameters": params}


TASKS = scenario(
    host("ok-a/fp8"), host("ok-b/fp8"), host("ok-c/fp8"),
    host("ignores/fp8", {"stop_ignored": {"rate": 1.0}}),
    host("echoes/fp8", {"stop_echoed": {"rate": 1.0}}),
    host("wrong/fp8", {"fidelity_errors": {"rate": 1.0, "share": 1.0}}),
    host("nostop/fp8", params=ALL_PARAMS),
)


@pytest.fixture(scope="module")
def simulator():
    with start_simulator(scenario_from_dict(TASKS), seed=5) as sim:
        yield sim


@pytest.fixture(scope="module")
def task_round(simulator, tmp_path_factory) -> ProbeRun:
    tmp = tmp_path_factory.mktemp("tasks")
    return run_round(tmp, simulator.base_url, f"--alluredir={tmp / 'allure'}",
                     config=canary_config(tmp, controls=(), optional=["stop", "fidelity"]))


def test_a_stop_honouring_host_passes_and_the_planted_stop_defects_fail(task_round: ProbeRun) -> None:
    assert task_round.outcome("ok-a/fp8", "stop") == "pass", task_round.case("ok-a/fp8", "stop")
    assert task_round.case("ignores/fp8", "stop")["reason"].startswith("stop: stop_ignored")
    assert task_round.case("echoes/fp8", "stop")["reason"].startswith("stop: stop_echoed")
    assert task_round.outcome("nostop/fp8", "stop") == "not_applicable"


def test_every_endpoint_is_asked_the_same_fidelity_items(task_round: ProbeRun) -> None:
    replies = {c["provider"]: c["attempts"][0]["excerpt"] for c in task_round.results["cases"]
               if c["contract"] == "fidelity"}
    healthy = {replies[t] for t in ("ok-a/fp8", "ok-b/fp8", "ok-c/fp8", "ignores/fp8", "nostop/fp8")}

    assert len(healthy) == 1, replies  # one round, one seed: the same items
    assert replies["wrong/fp8"] not in healthy


def test_the_probe_leaves_a_mostly_wrong_reply_to_the_peers_and_the_judge_fails_it(task_round: ProbeRun) -> None:
    probed = task_round.case("wrong/fp8", "fidelity")
    assert probed["outcome"] == "inconclusive" and set(probed["attempts"][0]["items"].values()) == {"fail"}

    rounds = classify_round(read_results(task_round.results), Policy())[MODEL].providers

    wrong = next(e for e in rounds["wrong/fp8"].evidence if e.contract == "fidelity")
    # The anomaly was confirmed (probe.language_confirmations more replies, all wrong): 15 items.
    assert wrong.outcome is Outcome.FAIL and wrong.reason.startswith("fidelity: wrong answers: 0 of 15")
    assert rounds["ok-a/fp8"].klass is RoundClass.CLEAN
    assert rounds["wrong/fp8"].klass is RoundClass.FAILED


def test_allure_shows_which_items_a_fidelity_reply_got_wrong(task_round: ProbeRun) -> None:
    allure = task_round.reports.parent / "allure"
    docs = [json.loads(p.read_text(encoding="utf-8")) for p in allure.glob("*-result.json")]
    [wrong] = [d for d in docs if d["name"].startswith("wrong/fp8 · fidelity")]
    answers, *_confirmations = [a for s in wrong["steps"] for a in s.get("attachments", []) if a["name"] == "answers"]

    assert (allure / answers["source"]).read_text(encoding="utf-8").splitlines()[0] == "arithmetic: WRONG"


def test_without_optional_contracts_a_round_has_none_of_their_cases(simulator, tmp_path: Path) -> None:
    done = run_round(tmp_path, simulator.base_url, config=canary_config(tmp_path, controls=(), optional=[]))
    assert {c["contract"] for c in done.results["cases"]} == {"latency", "refusal", "structured", "language"}
