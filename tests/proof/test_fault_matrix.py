"""Every simulator fault x every contract -> the expected outcome, in one real round.

One `pytest probes` subprocess against a simulator subprocess, over real sockets, with one
endpoint per fault at rate 1.0 (tests/proof/matrix.py holds the table and why each cell is
what it is). Each cell is its own test case, so a contradiction names its fault and contract.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _support import ProbeRun, Simulator, canary_config, endpoint, run_probe, scenario, write_yaml
from matrix import (
    CONTRACTS,
    CONTROL,
    DEADLINE_SECONDS,
    MATRIX,
    NO_OPTIONAL,
    NO_STRUCTURED,
    OPTIONAL_CONTRACTS,
    OPTIONAL_MATRIX,
    OPTIONAL_PARAMS,
    PARAMS,
    TRAITS,
    TTFT_SECONDS,
    render,
    tag_of,
)

ROOT = Path(__file__).resolve().parents[2]
FAST = {"ttft_ms": 60, "tokens_per_second": 2000}
NO_JSON_PARAMS = ("max_tokens", "temperature", "seed")

pytestmark = pytest.mark.slow


def matrix_scenario() -> dict[str, object]:
    hosts = []
    for fault, (params, _, _) in MATRIX.items():
        if fault in ("healthy", NO_STRUCTURED):
            extra = {"params": NO_JSON_PARAMS} if fault == NO_STRUCTURED else {}
            hosts.append(endpoint(tag_of(fault), **FAST, **extra))  # type: ignore[arg-type]
        else:
            rate = {} if fault in TRAITS else {"rate": 1.0}
            extra = {"params": PARAMS[fault]} if fault in PARAMS else {}
            hosts.append(endpoint(tag_of(fault), **FAST, **extra, faults={fault: {**rate, **params}}))  # type: ignore[arg-type]
    hosts.append(endpoint(CONTROL, **FAST, faults={"refusal": {"rate": 1.0}}))  # type: ignore[arg-type]
    return scenario("fault-matrix", hosts, keepalive_ms=50)


@pytest.fixture(scope="module")
def matrix_round(tmp_path_factory: pytest.TempPathFactory) -> ProbeRun:
    tmp = tmp_path_factory.mktemp("fault-matrix")
    scenario_file = write_yaml(tmp / "scenario.yaml", matrix_scenario())
    config = canary_config(tmp / "canary.yaml", controls=[CONTROL],
                           probe={"ttft_seconds": TTFT_SECONDS, "request_deadline_seconds": DEADLINE_SECONDS})
    with Simulator(scenario_file, seed=5) as sim:
        done = run_probe(sim.base_url, config, tmp / "reports", state=tmp / "no-state.json")
    assert (tmp / "reports" / "results.json").exists(), done.output[-3000:]
    return done


def optional_scenario() -> dict[str, object]:
    hosts = []
    for fault, (params, _, _) in OPTIONAL_MATRIX.items():
        listed = NO_JSON_PARAMS if fault == NO_OPTIONAL else OPTIONAL_PARAMS
        faults = None if fault in ("healthy", NO_OPTIONAL) else {fault: {"rate": 1.0, **params}}
        hosts.append(endpoint(tag_of(fault), **FAST, params=listed, faults=faults))  # type: ignore[arg-type]
    return scenario("fault-matrix-optional", hosts, keepalive_ms=50)


@pytest.fixture(scope="module")
def optional_round(tmp_path_factory: pytest.TempPathFactory) -> ProbeRun:
    """The optional contracts' round: only tools, stop and fidelity run (no refusal probe to verify)."""
    tmp = tmp_path_factory.mktemp("fault-matrix-optional")
    scenario_file = write_yaml(tmp / "scenario.yaml", optional_scenario())
    config = canary_config(tmp / "canary.yaml", contracts=OPTIONAL_CONTRACTS, optional_contracts=OPTIONAL_CONTRACTS,
                           probe={"ttft_seconds": TTFT_SECONDS, "request_deadline_seconds": DEADLINE_SECONDS})
    with Simulator(scenario_file, seed=5) as sim:
        done = run_probe(sim.base_url, config, tmp / "reports", state=tmp / "no-state.json")
    assert (tmp / "reports" / "results.json").exists(), done.output[-3000:]
    return done


def test_the_optional_round_completes(optional_round: ProbeRun) -> None:
    results = optional_round.results
    assert results["complete"] is True, results["incomplete_reason"]
    assert {c["contract"] for c in results["cases"]} == set(OPTIONAL_CONTRACTS)


@pytest.mark.parametrize("fault, contract", [(f, c) for f in OPTIONAL_MATRIX for c in OPTIONAL_CONTRACTS],
                         ids=[f"{f}-{c}" for f in OPTIONAL_MATRIX for c in OPTIONAL_CONTRACTS])
def test_each_fault_gives_the_expected_outcome_on_each_optional_contract(optional_round: ProbeRun, fault: str,
                                                                          contract: str) -> None:
    case = optional_round.case(tag_of(fault), contract)
    assert case["outcome"] == OPTIONAL_MATRIX[fault][1][contract], case["reason"]


def test_the_matrix_round_completes_with_its_probe_verified(matrix_round: ProbeRun) -> None:
    results = matrix_round.results
    assert results["complete"] is True, results["incomplete_reason"]
    assert results["weak_probes"] == []
    assert matrix_round.outcomes()[(CONTROL, "refusal")] == "pass"  # the control was caught


@pytest.mark.parametrize("fault, contract", [(f, c) for f in MATRIX for c in CONTRACTS],
                         ids=[f"{f}-{c}" for f in MATRIX for c in CONTRACTS])
def test_each_fault_gives_the_expected_outcome_on_each_contract(matrix_round: ProbeRun, fault: str,
                                                                 contract: str) -> None:
    case = matrix_round.case(tag_of(fault), contract)
    assert case["outcome"] == MATRIX[fault][1][contract], case["reason"]


def test_a_wrong_provider_reads_as_a_routing_mismatch(matrix_round: ProbeRun) -> None:
    for case in matrix_round.results["cases"]:
        if case["provider"] == tag_of("wrong_provider"):
            assert case["reason"].startswith("routing mismatch") and case["code"] == "routing_mismatch", case


def written_codes(round_: ProbeRun) -> dict[tuple[str, str], str]:
    """Each case's code as results.json carries it."""
    return {(case["provider"], case["contract"]): case["code"] for case in round_.results["cases"]}


def test_every_case_of_the_optional_round_has_a_code(optional_round: ProbeRun) -> None:
    codes = written_codes(optional_round)
    assert not [k for k, code in codes.items() if code.endswith("_other")], codes
    assert codes[(tag_of("stop_ignored"), "stop")] == "stop_ignored"
    assert codes[(tag_of("stop_echoed"), "stop")] == "stop_echoed"


def test_every_case_of_the_round_has_a_code(matrix_round: ProbeRun) -> None:
    # Every verdict carries its code (judge/replies/verdict.py): no case a real round writes may
    # read "<outcome>_other", and the history reads the code as written.
    from canary.history.rows import case_row
    from core.results_read import read_results

    codes = written_codes(matrix_round)
    assert not [k for k, code in codes.items() if code.endswith("_other")], codes
    assert all(case_row(c).code == codes[(c.provider, c.contract)] for c in read_results(matrix_round.results).cases)
    assert codes[(tag_of("slow_first_token"), "latency")] == "ttft_exceeded"
    assert codes[(tag_of("leading_garbage"), "language")] == "leading_garbage"
    assert codes[(tag_of("http_error"), "latency")].startswith("http_")
    assert codes[(tag_of("wrong_provider"), "refusal")] == "routing_mismatch"


def _cases(round_: ProbeRun, fault: str) -> list[dict[str, object]]:
    return [c for c in round_.results["cases"] if c["provider"] == tag_of(fault)]


def test_a_moderation_block_names_its_categories_and_counts_as_a_refusal(matrix_round: ProbeRun) -> None:
    refusal = next(c for c in _cases(matrix_round, "moderation") if c["contract"] == "refusal")
    assert str(refusal["reason"]).startswith("moderation:") and '"violence"' in str(refusal["reason"])
    assert all(a["error_kind"] == "moderation" for c in _cases(matrix_round, "moderation") for a in c["attempts"])  # type: ignore[attr-defined]


def test_a_connection_lost_before_the_first_byte_is_retried_once_and_both_requests_count(
    matrix_round: ProbeRun,
) -> None:
    cases = _cases(matrix_round, "reset_before_response")
    assert cases and all(c["requests"] == 2 for c in cases)  # one attempt each, two HTTP requests
    usage = matrix_round.results["usage"]
    assert usage[next(iter(usage))][tag_of("reset_before_response")]["requests"] == 2 * len(cases)


def test_a_reasoning_host_is_sent_the_reasoning_controls_and_reaches_verdicts(matrix_round: ProbeRun) -> None:
    cases = _cases(matrix_round, "thinking")
    assert {c["outcome"] for c in cases} == {"pass"}
    assert all(c["completion_tokens"] > 0 for c in cases)


def test_the_documented_table_is_the_asserted_one() -> None:
    assert (ROOT / "docs" / "fault-matrix.md").read_text(encoding="utf-8") == render()


def test_the_table_has_one_home_that_the_contracts_page_links() -> None:
    """docs/fault-matrix.md is the table; docs/contracts.md points at it instead of copying it."""
    table = "\n".join(line for line in render().splitlines() if line.startswith("|"))
    homes = [page.name for page in sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
             if table.splitlines()[2] in page.read_text(encoding="utf-8")]
    assert homes == ["fault-matrix.md"]
    assert "](fault-matrix.md)" in (ROOT / "docs" / "contracts.md").read_text(encoding="utf-8")


def test_billing_honesty_in_the_judge_fails_only_the_hidden_prompt_and_counts_the_missing_usage(
        matrix_round: ProbeRun) -> None:
    # Issue 22: the per-round half of billing honesty, on the same real round. The hidden system
    # prompt fails against ~30 peers; no other host of the matrix (hostile ones included) does;
    # the host without stream usage is recorded so, and passes its round.
    from core.policy import Policy
    from core.results_read import read_results
    from judge.suspension.evidence import USAGE, round_codes
    from judge.suspension.round import classify_round

    report = read_results(matrix_round.results)
    (model,) = classify_round(report, Policy()).values()
    hidden = {(p, e.contract) for p, pr in model.providers.items() for e in pr.evidence
              if e.reason.startswith("billing: prompt tokens")}
    # Its language case has peers only when two other hosts got its rotating language this round.
    mine = {(tag_of("hidden_system_prompt"), c) for c in ("latency", "refusal", "language")}
    assert mine - {(tag_of("hidden_system_prompt"), "language")} <= hidden <= mine
    assert model.providers[tag_of("no_stream_usage")].klass.value == "clean"
    codes = round_codes([c for c in report.cases if c.model == model.model])
    assert set(codes[tag_of("no_stream_usage")][USAGE]) == {"f"}
    assert set(codes[tag_of("healthy")][USAGE]) == {"p"}
    overbilled = [c for c in report.cases if c.provider == tag_of("overbilling")]
    assert all(c.reason.startswith("billing: cost above the listed price") for c in overbilled)


def test_the_judge_adds_the_peer_verdicts_of_the_optional_round(optional_round: ProbeRun) -> None:
    # The two verdicts the table leaves to the judge, on the same real round: prose fails only
    # because the other hosts called, wrong items only because the peers' median got them right;
    # every other failure of the judge is the round's own (no host gains a fail on a case that passed).
    from core.policy import Policy
    from core.results_read import read_results
    from judge.suspension.round import classify_round

    (model,) = classify_round(read_results(optional_round.results), Policy()).values()
    failed = {(p, e.contract) for p, pr in model.providers.items() for e in pr.evidence if e.outcome == "fail"}
    own = {(tag_of(f), c) for f, (_, cells, _) in OPTIONAL_MATRIX.items() for c, o in cells.items() if o == "fail"}
    by_peers = {(tag_of(f), "fidelity") for f in ("fidelity_errors", "content_filter", "empty_reply")}
    assert failed == own | {(tag_of("tool_prose"), "tools")} | by_peers
    reasons = {(p, e.contract): e.reason for p, pr in model.providers.items() for e in pr.evidence}
    assert "other hosts called a tool this round" in reasons[(tag_of("tool_prose"), "tools")]
    assert "vs the peers' median" in reasons[(tag_of("fidelity_errors"), "fidelity")]
    assert model.providers[tag_of(NO_OPTIONAL)].klass.value == "clean"
