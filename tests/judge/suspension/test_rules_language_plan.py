"""The language plan: rotate after a clean language case, repeat after a failure or an anomaly."""

from __future__ import annotations

from rules_factories import MODEL, PROVIDERS, T0, results

from core.policy import Policy
from core.results_read import read_results
from core.vocabulary import LANGUAGES
from judge.suspension.rules import apply_round
from judge.suspension.state import JudgeState

P = PROVIDERS[0]


def _plan_after(outcome: str, *, anomaly: bool = False, language: str = "pt") -> str | None:
    raw = results({P: {"language": outcome}}, languages={P: language})
    for c in raw["cases"]:
        if c["provider"] == P and c["contract"] == "language":
            c["anomaly"] = anomaly
    state, _ = apply_round(JudgeState(), read_results(raw), Policy(mode="observe"), now=T0)
    return state.language_plan()[MODEL].get(P)


def test_a_passing_language_case_advances_the_rotation() -> None:
    assert _plan_after("pass") == LANGUAGES[1]


def test_the_rotation_wraps_around() -> None:
    assert _plan_after("pass", language=LANGUAGES[-1]) == LANGUAGES[0]


def test_a_failed_language_case_repeats_the_language() -> None:
    assert _plan_after("fail", language="ko") == "ko"


def test_an_anomaly_repeats_the_language_even_when_the_majority_passed() -> None:
    assert _plan_after("pass", anomaly=True, language="ko") == "ko"


def test_other_outcomes_advance() -> None:
    assert _plan_after("transport_error", language="ko") == "ja"
