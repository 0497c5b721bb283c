"""A fair peer baseline (issue 20 item 2): a host's peers are the endpoints not failing the contract themselves."""

from __future__ import annotations

from judge.suspension.card import ALPHA
from judge.suspension.evidence import card_for, failing_endpoints
from judge.suspension.state import JudgeState, ProviderState
from judge.suspension.window import Window

MODEL = "m/x"


def fleet(contract: str, codes: dict[str, list[str]]) -> JudgeState:
    """A state whose endpoints' windows hold these rounds of codes on one contract."""
    providers = {}
    for provider, rounds in codes.items():
        w = Window()
        for segment in rounds:
            w = w.push({contract: segment})
        providers[provider] = ProviderState(window=w)
    return JudgeState(models={MODEL: providers})


def test_the_demos_broken_schema_host_is_not_hidden_by_the_other_broken_hosts() -> None:
    # The demo after two rounds: three hosts fail structured every time, five never (issue 20).
    state = fleet("structured", {"cinder": ["f", "f"], "ember": ["f", "f"], "glacier": ["f", "f"]}
                  | {h: ["p", "p"] for h in ("aurora", "borealis", "dune", "fjord", "harbor")})
    assert failing_endpoints(state, MODEL, "structured") == {"cinder", "ember", "glacier"}
    card = card_for(state, MODEL, "glacier", "structured")
    assert (card.peer_failures, card.peer_attempts, card.peers, card.set_aside) == (0, 10, 5, ("cinder", "ember"))
    assert card.significant  # was 2/2 vs 4/14, p = 0.12: "the defect may be the probe's or everybody's"
    assert card.text == ("structured: 2/2 failed (0.34-1) vs peers 0/10 (0-0.28), p = 0.015 "
                         "(set aside: 2 peers failing it themselves)")


def test_a_defect_shared_by_a_third_of_the_fleet_is_still_each_hosts_own() -> None:
    state = fleet("language", {f"bad{i}": ["fff", "fff"] for i in range(3)}
                  | {f"ok{i}": ["p", "p"] for i in range(6)})
    for bad in ("bad0", "bad1", "bad2"):
        card = card_for(state, MODEL, bad, "language")
        assert card.significant and card.peers == 6 and card.peer_failures == 0


def test_a_defect_everybody_shares_sets_nobody_aside() -> None:
    state = fleet("latency", {f"h{i}": ["f", "f"] for i in range(6)})
    assert failing_endpoints(state, MODEL, "latency") == frozenset()
    card = card_for(state, MODEL, "h0", "latency")
    assert card.peers == 5 and not card.significant


def test_a_slightly_noisier_healthy_host_stays_a_peer() -> None:
    # Noise: one failure in 20 replies, against hosts with none; not significant, so still a peer.
    state = fleet("language", {"noisy": ["f"] + ["p"] * 19} | {f"ok{i}": ["p"] * 20 for i in range(5)}
                  | {"bad": ["fff", "fff"]})
    assert failing_endpoints(state, MODEL, "language") == {"bad"}
    card = card_for(state, MODEL, "ok0", "language")
    assert "noisy" not in card.set_aside and card.peer_failures == 1


def test_when_setting_aside_would_leave_no_peer_everyone_stays() -> None:
    state = fleet("structured", {"a": ["p", "p", "p", "p"], "b": ["f", "f", "f", "f"]})
    card = card_for(state, MODEL, "a", "structured")
    assert card.peers == 1 and card.set_aside == () and card.p_value is not None and card.p_value >= ALPHA
