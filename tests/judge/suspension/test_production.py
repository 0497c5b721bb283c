"""Production evidence (judge/suspension/production.py): cards against the peers, the bar, staleness,
ambiguity, the model-wide guard, confirmations and rules.production."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest
from production_support import record
from rules_factories import HALF_HOUR, MODEL, PROVIDERS, T0, results

from core.field_rules import written
from core.policy import GuardRules, Policy
from core.production import ProductionCheck
from core.results_read import read_results
from judge.suspension import production
from judge.suspension.decisions import Action
from judge.suspension.production import weigh
from judge.suspension.rules import apply_round
from judge.suspension.state import JudgeState, read_state

BAD = "aurora/fp8"
NAMES = {MODEL: {p: p.split("/")[0].capitalize() for p in PROVIDERS}}
HEALTHY = {"Borealis": (0, 600), "Cirrus": (0, 600), "Dune": (0, 600), "Ember": (0, 600)}
GUARD = GuardRules()


def day(counts: dict[str, tuple[int, int]], *, windows: int = 8, end: Any = T0, **kw: Any) -> list[Any]:
    """`windows` records ending at `end` and each half hour before it, `counts` spread evenly over them."""
    def share(n: int, i: int) -> int:
        return n // windows + (i < n % windows)
    return [record(end - i * HALF_HOUR, {name: (share(f, i), share(p, i)) for name, (f, p) in counts.items()},
                   model=MODEL, **kw) for i in range(windows)]


def test_a_host_far_worse_than_its_peers_has_a_card_and_is_flagged() -> None:
    seen = weigh(day({"Aurora": (32, 368), **HEALTHY}), NAMES, GUARD, now=T0)
    [card] = seen.cards
    assert (card.provider, card.contract, card.flagged) == (BAD, "language", True)
    lines = seen.lines[(MODEL, BAD)]
    assert lines[0].startswith("production encoding [en, stream]: 32/400 failed (") and "vs peers 0/2400" in lines[0]
    assert lines[-1] == "production: sampled at 5 %; exporters' last window: chat-eu-1 2026-11-29T22:00:00Z"
    assert seen.lines[(MODEL, "borealis/bf16")][0] == "production: no failure in 600 sampled replies"
    # A reply may spell the provider in another case than the listing does.
    assert [c.provider for c in weigh(day({"AURORA": (32, 368), **HEALTHY}), NAMES, GUARD, now=T0).cards] == [BAD]


@pytest.mark.parametrize(("counts", "why"), [
    ({"Aurora": (4, 396), **HEALTHY}, "fewer than 5 failures"),
    ({"Aurora": (100, 900), "Borealis": (60, 1440), "Cirrus": (60, 1440), "Dune": (60, 1440), "Ember": (60, 1440)},
     "not 3x its peers' rate"),
    ({"Aurora": (32, 368), "Borealis": (0, 600), "Cirrus": (0, 96)}, "one peer with 100 replies"),
    ({"Aurora": (8, 92), "Borealis": (0, 200), "Cirrus": (0, 200)}, "p not under 1e-6"),
], ids=["few-failures", "ratio", "one-big-peer", "p-value"])
def test_evidence_under_the_bar_is_shown_never_flagged(counts: dict[str, tuple[int, int]], why: str) -> None:
    seen = weigh(day(counts), NAMES, GUARD, now=T0)
    mine = [c for c in seen.cards if c.provider == BAD]
    assert mine and not mine[0].flagged, why
    assert seen.lines[(MODEL, BAD)][0].startswith("production encoding")


def test_failures_in_fewer_than_five_windows_are_never_flagged() -> None:
    # One user's conversation staying on the endpoint for two hours: 3 checked replies a window, all failing.
    seen = weigh(day({"Aurora": (12, 0), **HEALTHY}, windows=4), NAMES, GUARD, now=T0)
    assert seen.cards and not seen.cards[0].flagged
    assert weigh(day({"Aurora": (15, 0), **HEALTHY}, windows=5), NAMES, GUARD, now=T0).cards[0].flagged


def test_a_drift_of_the_model_itself_flags_no_endpoint() -> None:
    # Most hosts answer some users in another language, one of them more often than the others.
    drift = {"Aurora": (240, 360), "Borealis": (88, 512), "Cirrus": (88, 512), "Dune": (0, 600), "Ember": (0, 600)}
    records = day(drift, check=ProductionCheck.LANGUAGE, language="pt")
    seen = weigh(records, NAMES, GUARD, now=T0)
    assert seen.cards and not any(c.flagged for c in seen.cards)
    assert all(c.model_wide for c in seen.cards)
    assert seen.lines[(MODEL, BAD)][0].endswith("(model-wide: counts for nobody)")
    # Without the guard, the host at 40 % against its peers' 7 % would be flagged.
    assert [c.provider for c in weigh(records, NAMES, replace(GUARD, enabled=False), now=T0).cards if c.flagged] \
        == [BAD]


def test_an_exporter_silent_for_the_last_half_hour_makes_the_evidence_stale_never_clean() -> None:
    late = T0 + HALF_HOUR + timedelta(minutes=1)   # the round starts after a window with no record
    seen = weigh(day({"Aurora": (32, 368), **HEALTHY}), NAMES, GUARD, now=late)
    assert seen.cards and not any(c.flagged for c in seen.cards)
    assert seen.lines[(MODEL, "dune/fp16")][-1].endswith(
        "chat-eu-1 2026-11-29T22:00:00Z STALE: no record in the 30 minutes before the round, never read as clean")
    # A second, fresh exporter does not hide the first one's silence.
    both = day({"Aurora": (32, 368), **HEALTHY}) + [record(late, {}, model=MODEL, exporter="chat-us-1")]
    assert not any(c.flagged for c in weigh(both, NAMES, GUARD, now=late).cards)


def test_a_provider_running_two_endpoints_of_the_model_is_shown_and_never_used() -> None:
    names = {MODEL: {**NAMES[MODEL], "aurora/turbo": "Aurora"}}
    seen = weigh(day({"Aurora": (32, 368), **HEALTHY}), names, GUARD, now=T0)
    assert not seen.cards
    assert seen.lines[(MODEL, BAD)][0] == ("production: Aurora serves aurora/fp8, aurora/turbo, so its 400 sampled "
                                           "replies (32 failed checks) are shown, never used for a rule")
    # The same when the backend marks the cell ambiguous itself (it knows the listing too).
    marked = weigh(day({"Aurora": (32, 368), **HEALTHY}, ambiguous=frozenset({"Aurora"})), NAMES, GUARD, now=T0)
    assert not marked.cards and "never used for a rule" in marked.lines[(MODEL, BAD)][0]
    lower = weigh(day({"aurora": (32, 368), **HEALTHY}), names, GUARD, now=T0)
    assert lower.lines[(MODEL, BAD)][0].startswith("production: Aurora serves aurora/fp8, aurora/turbo")


def test_only_the_evidence_span_before_the_round_is_pooled() -> None:
    old = day({"Aurora": (32, 368), **HEALTHY}, end=T0 - production.SPAN)
    fresh = day(dict(HEALTHY, Aurora=(0, 400)), windows=1)
    future = [record(T0 + HALF_HOUR, {"Aurora": (50, 0)}, model=MODEL)]
    seen = weigh(old + fresh + future, NAMES, GUARD, now=T0)
    assert not seen.cards and seen.lines[(MODEL, BAD)][0] == "production: no failure in 400 sampled replies"


def test_unknown_providers_and_the_models_remainder_are_left_out() -> None:
    seen = weigh(day({"Zephyr": (50, 350), **HEALTHY}), NAMES, GUARD, now=T0)
    assert not seen.cards and (MODEL, "zephyr/fp8") not in seen.lines
    assert weigh([], NAMES, GUARD, now=T0).lines == {}


# -- through apply_round: confirmations and rules.production --

def judged(spec: dict[str, Any] | None = None, *, step: str | bool = "observe", state: JudgeState | None = None,
           at: Any = T0, confirmation: dict[str, str] | None = None,
           counts: dict[str, tuple[int, int]] | None = None) -> tuple[JudgeState, list[Any]]:
    doc = results(spec, at=at)
    doc["models"][MODEL]["names"] = NAMES[MODEL]
    for c in doc["cases"]:
        if c["provider"] == BAD and c["contract"] in (confirmation or {}):
            c["confirmation"] = confirmation[c["contract"]]  # type: ignore[index]
    records = day(counts if counts is not None else {"Aurora": (32, 368), **HEALTHY}, end=at)
    return apply_round(state or JudgeState(), read_results(doc), replace(Policy(), production=step), now=at,
                       production=records)


def test_off_shows_the_cards_and_schedules_nothing() -> None:
    state, decisions = judged(step=False)
    assert not [d for d in decisions if d.action in (Action.CONFIRM, Action.CONFIRMATION)]
    assert state.provider(MODEL, BAD).to_confirm == ()
    assert state.provider(MODEL, BAD).production[0].startswith("production encoding")


def test_a_flagged_host_gets_a_confirmation_of_its_contract_next_round() -> None:
    state, decisions = judged()
    [confirm] = [d for d in decisions if d.action is Action.CONFIRM]
    assert (confirm.provider, confirm.rule) == (BAD, "production")
    assert confirm.card[0].contract == "production encoding [en, stream]" and "language case runs three times" in \
        confirm.reason
    assert state.confirm_plan() == {MODEL: {BAD: ("language",)}}
    again = read_state(written(state), "state")
    assert again.provider(MODEL, BAD) == state.provider(MODEL, BAD)
    # The evidence gone, the next round schedules nothing.
    later, _ = judged(state=state, at=T0 + HALF_HOUR, counts=HEALTHY)
    assert later.confirm_plan() == {}


@pytest.mark.parametrize(("step", "confirmation", "failed"), [
    ("observe", "fail", False), ("enforce", "fail", True), ("enforce", "pass", False)])
def test_the_rule_fails_a_round_only_in_enforce_and_only_when_the_pinned_probe_agrees(
        step: str, confirmation: str, failed: bool) -> None:
    state, _ = judged(step=step)
    for n in (1, 2):
        state, decisions = judged(step=step, state=state, at=T0 + n * HALF_HOUR,
                                  confirmation={"language": confirmation})
        [resolved] = [d for d in decisions if d.action is Action.CONFIRMATION]
        assert resolved.provider == BAD and resolved.card
    agreed = {"observe": "the round would fail on it (not counted)", "enforce": "the round fails on it"}
    assert resolved.reason.endswith(agreed[step] if confirmation == "fail" else "production evidence alone never fails "
                                    "a round")
    suspended = [d for d in decisions if d.action in (Action.SUSPEND, Action.WOULD_SUSPEND)]
    assert [d.provider for d in suspended] == ([BAD] if failed else [])
    assert (state.provider(MODEL, BAD).suspension is not None) is failed


def test_a_failed_case_of_the_contract_agrees_too_and_without_evidence_nothing_follows() -> None:
    state, _ = judged(step="enforce")
    _, decisions = judged({BAD: {"language": "fail"}}, step="enforce", state=state, at=T0 + HALF_HOUR)
    assert not [d for d in decisions if d.action is Action.CONFIRMATION]   # no confirmation case ran
    _, decisions = judged(step="enforce", state=state, at=T0 + HALF_HOUR, counts=HEALTHY,
                          confirmation={"language": "fail"})
    [resolved] = [d for d in decisions if d.action is Action.CONFIRMATION]
    assert resolved.reason.endswith("or the evidence faded): nothing follows")


def test_production_evidence_alone_never_fails_a_round() -> None:
    state = JudgeState()
    for n in range(6):
        state, decisions = judged(step="enforce", state=state, at=T0 + n * HALF_HOUR)
        assert not [d for d in decisions if d.action in (Action.SUSPEND, Action.WOULD_SUSPEND)]
    assert state.provider(MODEL, BAD).failed_streak == 0
