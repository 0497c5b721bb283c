"""The three layers merge into provider.ignore: builtin ∪ live incidents ∪ enforced suspensions."""

from __future__ import annotations

from datetime import timedelta

from hypothesis import given, settings
from hypothesis import strategies as st
from rules_factories import MODEL, T0

from core.layers import BUILTIN, INCIDENT, Exclusion, people_excluded
from judge.suspension.exclusions import effective_ignore, ignore_lists, would_ignore
from judge.suspension.state import JudgeState, ProviderState, Suspension

TAGS = st.sampled_from(["a/fp8", "b/fp8", "c/bf16", "d/fp4", "e/fp16"])
OFFSETS = st.integers(min_value=-72, max_value=72).map(lambda h: T0 + timedelta(hours=h))


def _suspended(until_hours: int, mode: str = "enforce") -> ProviderState:
    return ProviderState(suspension=Suspension(T0 - timedelta(days=1), T0 + timedelta(hours=until_hours), 1, mode, "r"))


def test_each_layer_contributes_and_duplicates_collapse() -> None:
    ex = (Exclusion(MODEL, "b/fp8", BUILTIN, "measured"), Exclusion(MODEL, "a/fp8", INCIDENT, "now"),
          Exclusion(MODEL, "a/fp8", BUILTIN, "also"))
    state = JudgeState(models={MODEL: {"c/bf16": _suspended(1)}})
    assert effective_ignore(MODEL, ex, state, T0) == ["a/fp8", "b/fp8", "c/bf16"]


def test_expired_incidents_and_suspensions_drop_out() -> None:
    ex = (Exclusion(MODEL, "a/fp8", INCIDENT, "x", expires=T0),)
    state = JudgeState(models={MODEL: {"c/bf16": _suspended(0)}})
    assert effective_ignore(MODEL, ex, state, T0) == []
    assert effective_ignore(MODEL, ex, state, T0 - timedelta(seconds=1)) == ["a/fp8", "c/bf16"]


def test_observe_records_only_appear_in_would_ignore() -> None:
    state = JudgeState(models={MODEL: {"c/bf16": _suspended(5, "observe")}})
    assert effective_ignore(MODEL, (), state, T0) == []
    assert would_ignore(MODEL, (), state, T0) == ["c/bf16"]


def test_ignore_lists_hold_every_known_model_with_both_lists() -> None:
    ex = (Exclusion(MODEL, "a/fp8", INCIDENT, "x"), Exclusion("other/model", "b/fp8", BUILTIN, "y"))
    state = JudgeState(models={MODEL: {"c/bf16": _suspended(5, "observe")}})
    ignore, would = ignore_lists(ex, state, T0, ["quiet/model"])
    assert ignore == {MODEL: ("a/fp8",), "other/model": ("b/fp8",), "quiet/model": ()}
    assert would == {MODEL: ("a/fp8", "c/bf16"), "other/model": ("b/fp8",), "quiet/model": ()}


def test_other_models_do_not_leak() -> None:
    ex = (Exclusion("other/model", "a/fp8", BUILTIN, "x"),)
    assert effective_ignore(MODEL, ex, JudgeState(), T0) == []
    assert people_excluded(ex, T0) == {"other/model": frozenset({"a/fp8"})}


@settings(max_examples=200, deadline=None)
@given(
    builtin=st.lists(TAGS, max_size=3),
    incidents=st.lists(st.tuples(TAGS, st.none() | OFFSETS), max_size=4),
    suspensions=st.dictionaries(TAGS, st.tuples(OFFSETS, st.sampled_from(["enforce", "observe"])), max_size=4),
    now=OFFSETS,
)
def test_ignore_is_always_builtin_plus_incidents_plus_suspensions_minus_expired(builtin, incidents, suspensions, now):  # type: ignore[no-untyped-def]
    ex = tuple(Exclusion(MODEL, t, BUILTIN, "b") for t in builtin) + tuple(
        Exclusion(MODEL, t, INCIDENT, "i", expires=e) for t, e in incidents)
    state = JudgeState(models={MODEL: {
        t: ProviderState(suspension=Suspension(T0 - timedelta(days=9), until, 1, mode, "s"))
        for t, (until, mode) in suspensions.items()}})
    expected = set(builtin) | {t for t, e in incidents if e is None or e > now} | {
        t for t, (until, mode) in suspensions.items() if mode == "enforce" and until > now}
    assert effective_ignore(MODEL, ex, state, now) == sorted(expected)
