"""Random sequences of rounds through the real rules, checked against an independent reading of the rules.

The oracle below re-derives each endpoint's round class (failed / clean / frozen, model-wide
guard included) from the generated outcomes, without calling judge/suspension/round.py.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import timedelta
from typing import Any

import yaml
from hostile_support import MODEL, T0, Files, files_in, iso
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from canary.state.judge_files import save_state
from core.policy import ENFORCE, Mode, Policy
from core.results_read import read_results
from judge.suspension.decisions import Action, Rule
from judge.suspension.rules import apply_round
from judge.suspension.state import JudgeState

POLICY = Policy()
TAGS = ("a/fp8", "b/bf16", "c/fp8", "d/fp16", "e/int4")
CONTRACTS = ("latency", "refusal", "structured", "language")
OUTCOME = st.sampled_from(["pass"] * 6 + ["fail"] * 3 + ["transport_error", "inconclusive", "not_applicable",
                                                           "missing"])
SUSPENDING = (Action.SUSPEND, Action.WOULD_SUSPEND)


@st.composite
def a_round(draw: st.DrawFn) -> dict[str, Any]:
    discovered = draw(st.lists(st.sampled_from(TAGS), min_size=1, max_size=len(TAGS), unique=True))
    healthy = draw(st.booleans())
    outcomes = {t: {c: ("pass" if healthy and draw(st.booleans()) else draw(OUTCOME)) for c in CONTRACTS}
                for t in discovered}
    gap = draw(st.sampled_from([timedelta(minutes=30)] * 8 + [timedelta(hours=5), timedelta(days=2),
                                                              timedelta(days=15)]))
    return {"discovered": sorted(discovered), "outcomes": outcomes, "complete": draw(st.integers(0, 9)) > 0,
            "gap": gap}


def _document(spec: dict[str, Any], at: Any, n: int) -> dict[str, Any]:
    cases = [{"model": MODEL, "provider": t, "contract": c, "outcome": o, "reason": f"{c} {o}", "control": False,
              "language": "pt", "anomaly": False}
             for t, per in spec["outcomes"].items() for c, o in per.items() if o != "missing"]
    return {"schema_version": 1, "round_id": f"r{n:04d}", "started_at": iso(at), "complete": spec["complete"],
            "incomplete_reason": None if spec["complete"] else "cut short",
            "models": {MODEL: {"providers": spec["discovered"]}}, "cases": cases, "weak_probes": []}


def oracle_outcomes(spec: dict[str, Any]) -> dict[str, dict[str, str]]:
    """Per endpoint, each probed contract's outcome as it counts: the model-wide guard's failures inconclusive."""
    per = {t: {c: o for c, o in outs.items() if o != "missing"} for t, outs in spec["outcomes"].items()}
    expected = {c for outs in per.values() for c in outs}
    discounted = set()
    for c in expected:
        probed = [t for t in per if c in per[t]]
        failing = [t for t in probed if per[t][c] == "fail"]
        guard = POLICY.model_wide_guard
        if len(probed) >= guard.min_endpoints and len(failing) > guard.min_fraction * len(probed):
            discounted |= {(t, c) for t in failing}
    return {t: {c: ("inconclusive" if (t, c) in discounted else o) for c, o in outs.items()}
            for t, outs in per.items()}


def oracle_classes(spec: dict[str, Any]) -> dict[str, str]:
    """failed / clean / frozen per endpoint, from the rules as issue 4 states them."""
    expected = {c for outs in spec["outcomes"].values() for c, o in outs.items() if o != "missing"}
    out = {}
    for t, counted in oracle_outcomes(spec).items():
        if "fail" in counted.values():
            out[t] = "failed"
        elif (set(counted) >= expected and "pass" in counted.values()
              and set(counted.values()) <= {"pass", "not_applicable"}):
            out[t] = "clean"
        else:
            out[t] = "frozen"
    return out


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rounds=st.lists(a_round(), min_size=1, max_size=30), mode=st.sampled_from(tuple(Mode)),
       excluded=st.sets(st.sampled_from(TAGS), max_size=2))
def test_random_rounds_obey_the_rules(rounds: list[dict[str, Any]], mode: str, excluded: set[str]) -> None:
    state, now = JudgeState(), T0
    people = {MODEL: frozenset(excluded)}
    since_suspension: dict[str, list[str]] = {t: [] for t in TAGS}
    failed_since: dict[str, set[str]] = {t: set() for t in TAGS}  # counted failures since its last suspension
    for n, spec in enumerate(rounds):
        now += spec["gap"]
        report = read_results(_document(spec, now, n))
        new, decisions = apply_round(state, report, replace(POLICY, mode=mode), now=now, excluded=people)

        # Applying the same round again changes nothing.
        again, repeat = apply_round(new, report, replace(POLICY, mode=mode), now=now + timedelta(minutes=1),
                                    excluded=people)
        assert again == new and repeat == []

        classes = oracle_classes(spec) if spec["complete"] else {}
        counted = oracle_outcomes(spec) if spec["complete"] else {}
        for t, klass in classes.items():
            since_suspension[t].append(klass)
            failed_since[t] |= {c for c, o in counted[t].items() if o == "fail"}
        suspended_now = {d.provider for d in decisions if d.action in SUSPENDING}
        ended_now = {d.provider for d in decisions if d.rule is Rule.FAILING_CONTRACT_PASSED}
        assert all(classes.get(t) == "frozen" for t in ended_now)
        for t in TAGS:
            before, after = state.provider(MODEL, t), new.provider(MODEL, t)
            if not spec["complete"] or classes.get(t) == "frozen":
                # Frozen (or incomplete) rounds never move a clean streak, nor a failed one, except
                # that a suspension consumes its evidence and a frozen round in which every contract
                # the pending failed streak failed on passed ends it (judge/suspension/streaks.py).
                assert after.clean_streak == before.clean_streak
                all_passed = bool(before.failing_contracts) and all(
                    counted.get(t, {}).get(c) == "pass" for c in before.failing_contracts)
                since = None if before.last_counted_at is None else now - before.last_counted_at
                pending = since is not None and POLICY.min_round_gap <= since <= POLICY.pending_window
                ends = before.failed_streak > 0 and all_passed and pending
                assert (t in ended_now) == ends
                assert after.failed_streak == (0 if t in suspended_now or ends else before.failed_streak)
            elif classes.get(t) == "failed" and t not in suspended_now and after.last_counted_at == now:
                # A counted failed round remembers what failed (the guard's discounted failures are none).
                assert {c for c, o in counted[t].items() if o == "fail"} <= set(after.failing_contracts)
            # What the pending streak remembers failed did fail, and only while a streak is pending.
            assert set(after.failing_contracts) <= failed_since[t]
            assert not after.failing_contracts or after.failed_streak > 0
        if any(d.action is Action.FLOOR_HELD for d in decisions):
            event("the floor held")
        if ended_now:
            event("a frozen round ended a failed streak")
        for t in suspended_now:
            # Never suspended after fewer than two failed rounds (frozen skipped, clean resets).
            kinds = [k for k in since_suspension[t] if k != "frozen"]
            assert kinds[-POLICY.failed_rounds_to_suspend:] == ["failed"] * POLICY.failed_rounds_to_suspend
            since_suspension[t] = []
            failed_since[t] = set()
        if suspended_now:
            event("a suspension happened")
            # Never below the capacity floor: the discovered endpoints nobody excludes stay >= floor.
            out = {t for t, ps in new.models.get(MODEL, {}).items() if ps.suspension and ps.suspension.active(now)}
            usable = set(spec["discovered"]) - excluded - out
            assert len(usable) >= POLICY.capacity_floor
        if not spec["complete"]:
            assert decisions and all(d.action is Action.INCOMPLETE_ROUND for d in decisions)
            assert new.models == state.models
        state = new


@st.composite
def layers(draw: st.DrawFn) -> dict[str, Any]:
    builtin = draw(st.sets(st.sampled_from(TAGS), max_size=2))
    incidents = draw(st.lists(st.tuples(st.sampled_from(TAGS), st.one_of(st.none(), st.integers(-72, 72))),
                              max_size=3, unique_by=lambda x: x[0]))
    rounds = draw(st.lists(a_round(), min_size=0, max_size=8))
    later = draw(st.integers(0, 24 * 10))  # hours after the last round: some suspensions have expired
    return {"builtin": builtin, "incidents": incidents, "rounds": rounds, "later": later,
            "mode": draw(st.sampled_from(tuple(Mode)))}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(data=layers())
def test_canary_ignore_is_builtin_plus_unexpired_incidents_plus_enforced_suspensions(
        tmp_path_factory: Any, data: dict[str, Any]) -> None:
    f: Files = files_in(tmp_path_factory.mktemp("ignore"))
    state, now = JudgeState(), T0
    for n, spec in enumerate(data["rounds"]):
        now += spec["gap"]
        state, _ = apply_round(state, read_results(_document(spec, now, n)), replace(POLICY, mode=data["mode"]),
                               now=now)
    now += timedelta(hours=data["later"])
    save_state(f.state, state)
    f.builtin.parent.mkdir(parents=True, exist_ok=True)
    reviewed = [{"provider": t, "reason": "reviewed"} for t in sorted(data["builtin"])]
    builtin = {MODEL: reviewed} if data["builtin"] else {}
    f.builtin.write_text(yaml.safe_dump(builtin), encoding="utf-8")
    incidents = [{"provider": t, "reason": "incident", "added_at": iso(T0),
                  **({"expires": iso(now + timedelta(hours=h))} if h is not None else {})}
                 for t, h in data["incidents"]]
    f.incidents.write_text(yaml.safe_dump({MODEL: incidents} if incidents else {}), encoding="utf-8")

    # The expectation, read straight from the three files.
    raw_state = json.loads(f.state.read_text(encoding="utf-8"))
    expected = set(data["builtin"]) | {t for t, h in data["incidents"] if h is None or h > 0}
    for tag, ps in raw_state["models"].get(MODEL, {}).items():
        s = ps["suspension"]
        if s and s["mode"] == ENFORCE and s["until"] > iso(now):
            expected.add(tag)

    import contextlib
    import io

    from canary.cli.main import main
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--config", str(f.config), "ignore", "--model", MODEL, "--now", iso(now)]) == 0
    assert json.loads(out.getvalue()) == sorted(expected)
    if data["mode"] != ENFORCE:
        assert json.loads(out.getvalue()) == sorted(set(data["builtin"]) | {t for t, h in data["incidents"]
                                                                          if h is None or h > 0})


def test_the_oracle_agrees_with_a_known_round() -> None:
    spec = {"discovered": list(TAGS[:3]), "complete": True, "gap": timedelta(minutes=30), "outcomes": {
        TAGS[0]: dict.fromkeys(CONTRACTS, "pass"),
        TAGS[1]: {**dict.fromkeys(CONTRACTS, "pass"), "latency": "fail"},
        TAGS[2]: {**dict.fromkeys(CONTRACTS, "pass"), "language": "transport_error"}}}
    assert oracle_classes(spec) == {TAGS[0]: "clean", TAGS[1]: "failed", TAGS[2]: "frozen"}


