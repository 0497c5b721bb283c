"""Issue 37 item 2: one endpoint's bare 402 in a whole round (`pytest probes` against the simulator).

OpenRouter answers a bare 402 ("This request requires more credits, or fewer max_tokens") to a
request whose max_tokens at its endpoint's price may cost more than the key has left. The key is
fine for every other host: GET /key accepts it. That endpoint's cases freeze (key_limit), the round
stays complete, the other hosts' streaks move, and the round says the key's limit is near. Only
when GET /key refuses the key too is the round voided, as before.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from round_support import MODEL, ProbeRun, canary_config, endpoint, run_round, scenario

from canary.outputs import summary
from core.policy import Policy
from core.results import IncompleteKind
from core.results_read import read_results
from judge.suspension.rules import apply_round
from judge.suspension.state import JudgeState
from simulator import scenario_from_dict, start_simulator

# $1 of the key's $10 left: pricey/fp8's max_tokens at $0.10 a token may cost more; the others' cannot.
PRICEY = {**endpoint("pricey/fp8"), "pricing": {"prompt": "0.0000003", "completion": "0.1"}}
FLEET = [endpoint("ok/fp8"), endpoint("broken/fp8", {"schema_violation": {"rate": 1.0}}), PRICEY]


def _round(tmp: Any, key: dict[str, Any]) -> ProbeRun:
    with start_simulator(scenario_from_dict({**scenario(*FLEET), "key": key}), seed=5) as sim:
        return run_round(tmp, sim.base_url, "-m", "structured",
                         config=canary_config(tmp, controls=()))


def _judged(run: ProbeRun) -> JudgeState:
    results = read_results(run.results)
    state, _ = apply_round(JudgeState(), results, Policy(), now=results.started_at + timedelta(minutes=5))
    return state


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> ProbeRun:
    return _round(tmp_path_factory.mktemp("limited"), {"limit": 10, "usage": 9})


def test_one_endpoints_bare_402_freezes_it_and_the_round_stays_complete(limited: ProbeRun) -> None:
    results = limited.results
    assert results["complete"] is True, (results["incomplete"], limited.output[-3000:])
    pricey = limited.case("pricey/fp8", "structured")
    assert (pricey["outcome"], pricey["code"]) == ("transport_error", "key_limit"), pricey
    assert "requires more credits, or fewer max_tokens" in pricey["reason"], pricey
    assert limited.outcome("broken/fp8", "structured") == "fail"
    assert limited.outcome("ok/fp8", "structured") == "pass"


def test_the_other_hosts_streaks_move_and_the_frozen_one_does_not(limited: ProbeRun) -> None:
    state = _judged(limited)
    assert state.provider(MODEL, "broken/fp8").failed_streak == 1
    assert state.provider(MODEL, "pricey/fp8").failed_streak == 0


def test_the_round_says_the_keys_limit_is_near(limited: ProbeRun) -> None:
    assert "!!! KEY LIMIT NEAR: a request to pricey/fp8 may cost more than the key has left" in limited.output
    text = summary.to_text(read_results(limited.results))
    assert "Key limit near: a request to pricey/fp8" in text and "Incomplete round" not in text


def test_the_round_is_still_voided_when_get_key_refuses_the_key(tmp_path: Any) -> None:
    refused = _round(tmp_path, {"limit": 10, "usage": 9, "refused": 401})
    results = refused.results
    assert results["complete"] is False and [i["kind"] for i in results["incomplete"]] == [IncompleteKind.AUTH]
    assert refused.case("pricey/fp8", "structured")["code"] == "auth_refused"
    assert "KEY LIMIT NEAR" not in refused.output
    assert _judged(refused).provider(MODEL, "broken/fp8").failed_streak == 0  # no streak moved anywhere
