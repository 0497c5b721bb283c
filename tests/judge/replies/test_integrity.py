"""Reply integrity on every reply of a round (issue 20 item 1): the host's corruption is in all of them."""

from __future__ import annotations

from typing import Any

import pytest
from rules_factories import MODEL, PROVIDERS, results

from core.field_rules import written
from core.policy import Policy
from core.results import AttemptResult
from core.results_read import read_attempt, read_results
from core.vocabulary import Outcome
from judge.replies.integrity import check_reply, judge_integrity
from judge.suspension.evidence import add_round_to_windows
from judge.suspension.round import RoundClass, classify_round
from judge.suspension.state import JudgeState

# The demo's garbage host: its latency reply began like this and passed (issue 20).
GARBLED_LATENCY = 's.\n"Thank you for coming in out of the cold! We do have a room left."'


# -- one reply ---------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    GARBLED_LATENCY,
    '",*Veyra laughs softly and lowers the knife.* "A warning? From a rat?"',
    "<|im_end|>*Veyra lowers the knife.*",
    "Okay, the user wants me to continue the story with Veyra. *Veyra lowers the knife.*",
    "ĠTheĠdoorĠcreakedĠopen and Veyra smiled.",
], ids=["stray-bytes", "stray-punctuation", "template-token", "leaked-reasoning", "undecoded-tokens"])
def test_a_corrupted_roleplay_reply_fails_the_check(text: str) -> None:
    assert check_reply(text) is not None


@pytest.mark.parametrize("text", [
    '"Good evening, traveller! Yes, one room is still free."',
    "*Veyra lowers the knife, eyes narrowing.* \"A warning? Speak quickly, rat.\"",
    "Mara: Of course! Come in, come in.",
], ids=["quoted", "action", "speaker-label"])
def test_a_healthy_roleplay_reply_passes_the_check(text: str) -> None:
    assert check_reply(text) is None


@pytest.mark.parametrize("text, defect", [
    ('{"name": "ttl", "items": [1, 2]}', False),
    ('```json\n{"name": "x"}\n```', False),
    ('Sure! Here is the JSON you asked for:\n```json\n{"name": "x"}\n```', False),  # malformed, not corrupted
    ('{"name": "x"', False),                                                          # truncated: the schema's
    ('s.\n{"name": "x", "items": []}', True),
    ('_,{"name": "x"}', True),
    ('{"name": "<|im_end|>"}', True),
    ('<think>The user wants JSON.</think>{"name": "x"}', True),
    ('{"name": "[REDACTED]", "email": "<EMAIL_ADDRESS>"}', True),
], ids=["clean", "fenced", "prose-around-json", "truncated", "stray-bytes", "stray-punctuation", "template-token",
        "reasoning", "placeholders"])
def test_a_structured_reply_is_judged_as_json_not_as_prose(text: str, defect: bool) -> None:
    assert (check_reply(text, json_reply=True) is not None) is defect


# -- the round's rule --------------------------------------------------------------------------

def checked(outcomes: str, reason: str = "leading garbage: stray bytes") -> list[dict[str, Any]]:
    return [{"outcome": "pass", "finish_reason": "stop", "integrity": "pass" if c == "p" else "fail",
             "integrity_reason": "" if c == "p" else reason} for c in outcomes]


def round_doc(aurora: dict[str, str]) -> dict[str, Any]:
    """A round where aurora's replies per contract carry these integrity checks; everyone else is intact."""
    doc = results()
    for c in doc["cases"]:
        own = aurora.get(c["contract"], "p") if c["provider"] == "aurora/fp8" else "p"
        c["attempts"] = checked(own)
        if c["contract"] == "language":  # the language probe's own verdict includes the same check
            for a in c["attempts"]:
                a["outcome"] = a["integrity"]
    return doc


def aurora_language(doc: dict[str, Any]) -> Any:
    cases = [c for c in read_results(doc).cases if c.model == MODEL]
    return next(c for c in judge_integrity(cases) if c.provider == "aurora/fp8" and c.contract == "language")


def test_a_host_corrupting_most_of_its_replies_fails_language_even_when_the_language_reply_passed() -> None:
    case = aurora_language(round_doc({"latency": "f", "refusal": "f", "structured": "f", "language": "p"}))
    assert case.outcome is Outcome.FAIL
    assert case.reason.startswith("reply integrity: 3 of the endpoint's 4 replies this round are corrupted")
    assert "latency: leading garbage: stray bytes" in case.reason


@pytest.mark.parametrize("aurora", [{"latency": "f"}, {"latency": "f", "refusal": "f", "language": "ppp"}],
                         ids=["one-reply", "not-most"])
def test_one_corrupted_reply_or_a_minority_is_evidence_only(aurora: dict[str, str]) -> None:
    assert aurora_language(round_doc(aurora)).outcome is Outcome.PASS


def test_the_judge_classifies_the_round_failed_on_it() -> None:
    doc = round_doc({"latency": "f", "refusal": "f", "structured": "f"})
    rounds = classify_round(read_results(doc), Policy())[MODEL].providers
    assert rounds["aurora/fp8"].klass is RoundClass.FAILED
    assert all(rounds[p].klass is RoundClass.CLEAN for p in PROVIDERS[1:])


def test_every_checked_reply_is_language_evidence() -> None:
    doc = round_doc({"latency": "f", "refusal": "fp", "structured": "f", "language": "fff"})
    window = add_round_to_windows(JudgeState(), read_results(doc), Policy()).provider(MODEL, "aurora/fp8").window
    assert sorted(window.contracts["language"][0]) == sorted("fff" + "f" + "fp" + "f")
    assert window.contracts["latency"] == ("p",)  # the latency verdict is the first token's, not the text's
    healthy = add_round_to_windows(JudgeState(), read_results(doc), Policy()).provider(MODEL, "borealis/bf16").window
    assert healthy.tally("language").attempts == 4


def test_without_a_language_case_the_checks_are_not_recorded() -> None:
    doc = round_doc({"latency": "f", "refusal": "f"})
    doc["cases"] = [c for c in doc["cases"] if not (c["provider"] == "aurora/fp8" and c["contract"] == "language")]
    window = add_round_to_windows(JudgeState(), read_results(doc), Policy()).provider(MODEL, "aurora/fp8").window
    assert "language" not in window.contracts


def test_the_check_round_trips_through_results_json() -> None:
    a = AttemptResult(outcome=Outcome.PASS, code="pass", reason="ok", integrity=Outcome.FAIL,
                      integrity_reason="leading garbage")
    assert read_attempt(written(a)) == a
    assert read_attempt({"outcome": "pass", "reason": "older file"}) == \
        AttemptResult(outcome=Outcome.PASS, code="pass", reason="older file")
