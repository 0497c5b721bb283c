"""The Allure results of a round explain each case without the logs: title, labels, the requests."""

from __future__ import annotations

import json

import pytest
from round_support import endpoint, run_round, scenario

from simulator import scenario_from_dict, start_simulator

FLAKY = scenario(
    endpoint("ok/fp8"),
    endpoint("mixed/fp8", {"mix_language": {"rate": 1.0}}),
    endpoint("down/fp8", {"http_error": {"rate": 1.0, "status": 502}}),
)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    """One round (language contract only) shared by the tests of this module."""
    tmp_path = tmp_path_factory.mktemp("allure-round")
    with start_simulator(scenario_from_dict(FLAKY), seed=3) as sim:
        run_round(tmp_path, sim.base_url, f"--alluredir={tmp_path / 'allure'}", "-m", "language")
    out = {}
    for path in (tmp_path / "allure").glob("*-result.json"):
        doc = json.loads(path.read_text(encoding="utf-8"))
        out[doc["name"]] = doc
    out["__containers__"] = [json.loads(p.read_text(encoding="utf-8"))
                             for p in (tmp_path / "allure").glob("*-container.json")]
    out["__environment__"] = dict(line.split("=", 1) for line in (tmp_path / "allure" / "environment.properties")
                                  .read_text(encoding="utf-8").splitlines())
    return out


def attachments(steps: list[dict]) -> set[str]:
    return {a["name"] for s in steps for a in s.get("attachments", [])}


def test_a_failing_case_reads_on_its_own(results: dict[str, dict]) -> None:
    [mixed] = [doc for name, doc in results.items() if name.startswith("mixed/fp8 · language")]
    assert mixed["status"] == "failed"
    assert "quality failure" in mixed["statusDetails"]["message"]
    # The trace is the verdict in one line, not a traceback through the plugin with a ProbedCase repr.
    assert mixed["statusDetails"]["trace"].startswith("quality failure: ")
    assert "\n" not in mixed["statusDetails"]["trace"] and "ProbedCase" not in mixed["statusDetails"]["trace"]
    labels = {(label["name"], label["value"]) for label in mixed["labels"]}
    assert {("provider", "mixed/fp8"), ("contract", "language"), ("suite", "language"),
            ("subSuite", "mixed/fp8")} <= labels
    # the first attempt and its two confirmations, each with what was sent, what came back, timings
    assert len(mixed["steps"]) == 3
    assert {step["status"] for step in mixed["steps"]} == {"failed"}
    assert attachments(mixed["steps"]) == {"prompt", "reply", "timings"}
    assert "fail" in mixed["description"]


def test_a_transport_error_is_broken_and_still_shows_its_request(results: dict[str, dict]) -> None:
    [down] = [doc for name, doc in results.items() if name.startswith("down/fp8 · language")]
    assert down["status"] == "broken"
    assert "transport error" in down["statusDetails"]["message"]
    # Ended in setup: the request is listed by the teardown finalizer of its fixture.
    afters = [a for c in results["__containers__"] if down["uuid"] in c.get("children", [])
              for a in c.get("afters", [])]
    steps = [s for a in afters for s in a.get("steps", [])]
    assert attachments(steps) == {"prompt", "reply", "timings"}
    assert {step["status"] for step in steps} == {"broken"}


def test_a_passing_case_has_a_readable_title(results: dict[str, dict]) -> None:
    [ok] = [doc for name, doc in results.items() if name.startswith("ok/fp8 · language (")]
    assert ok["status"] == "passed" and [step["status"] for step in ok["steps"]] == ["passed"]


def test_the_environment_lists_only_the_contracts_probed(results: dict[str, dict]) -> None:
    assert results["__environment__"]["contracts"] == "language"   # -m language: not every declared contract
