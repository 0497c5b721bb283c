"""Every verdict carries its code, from the real producers where they are plain functions (the
judging functions of judge/); tests/proof's fault matrix round checks every code of a real round
over real sockets."""

from __future__ import annotations

import pytest

from core.results import AttemptResult, CaseResult
from core.vocabulary import Outcome
from judge.replies import language, refusal, stop, structured
from judge.replies.fidelity import make_items
from judge.suspension.fidelity import judge_fidelity

KINDS = tuple(item.kind for item in make_items(0))   # the item kinds, in the prompt's order

SCHEMA = {"type": "object", "properties": {"mood": {"enum": ["calm", "tense"]}}, "required": ["mood"]}


@pytest.mark.parametrize("text,code", [
    ("_,The corridor was quiet when she arrived at the old station.", "leading_garbage"),
    ("The corridor \ufffd\ufffd was quiet when she arrived at the old station.", "replacement_char"),
    ("The caf\u00c3\u00a9 was quiet and the cr\u00c3\u00a8me was cold when she arrived.", "mojibake"),
    ("She waits by the door. " * 6, "repetition"),
], ids=["leading", "fffd", "mojibake", "repetition"])
def test_the_language_judges_defects_get_their_codes(text: str, code: str) -> None:
    # Through language.assess, the contract's entry point (the defect checks run before detection).
    verdict = language.assess(text, "en")
    assert verdict.outcome == "fail" and verdict.code == code, verdict


@pytest.mark.parametrize("verdict,code", [
    (lambda: refusal.assess("", None), "empty_reply"),
    (lambda: refusal.assess("", "content_filter"), "content_filter"),
    (lambda: refusal.assess("I'm sorry, but I can't help with that request as it violates my guidelines.", "stop"),
     "refusal_pattern"),
    (lambda: structured.assess("not json at all", SCHEMA), "not_json"),
    (lambda: structured.assess('{"mood": "ecstatic"}', SCHEMA), "schema_violation"),
    (lambda: structured.assess("  ", SCHEMA), "empty_reply"),
    (lambda: language.assess("Olá.", "pt"), "too_short"),
], ids=["empty", "content-filter", "refusal", "not-json", "schema", "empty-json", "too-short"])
def test_the_judges_reasons_get_their_codes(verdict, code: str) -> None:  # type: ignore[no-untyped-def]
    v = verdict()
    assert v.outcome != "pass" and v.code == code, v


@pytest.mark.parametrize("reply, code", [
    ("\n".join(str(n) for n in range(1, 31)), "stop_ignored"),
    ("\n".join(str(n) for n in range(1, 14)), "stop_echoed"),
    ("A poem about numbers, not a count.", "task_not_followed"),
], ids=["ignored", "echoed", "not-followed"])
def test_the_stop_judges_reasons_get_their_codes(reply: str, code: str) -> None:
    v = stop.assess(reply, "13")
    assert v.code == code, v


@pytest.mark.parametrize("right, code", [("00000", "fidelity_wrong"), ("10000", "fidelity_as_peers")])
def test_the_fidelity_rules_reasons_get_their_codes(right: str, code: str) -> None:
    def fidelity(provider: str, marks: str) -> CaseResult:
        items = tuple((k, Outcome.PASS if m == "1" else Outcome.FAIL) for k, m in zip(KINDS, marks, strict=True))
        attempt = AttemptResult(outcome=Outcome.INCONCLUSIVE, code="fidelity_unjudged", reason="probe", items=items)
        return CaseResult(model="m/x", provider=provider, contract="fidelity", outcome=Outcome.INCONCLUSIVE,
                          code="fidelity_unjudged", reason="probe", attempts=(attempt,))

    peers = ("11111", "11111") if code == "fidelity_wrong" else ("11000", "10100")
    [case, *_] = judge_fidelity([fidelity("x", right), *(fidelity(f"p{i}", r) for i, r in enumerate(peers))])
    assert case.code == code, case


def test_the_fidelity_probes_own_reason_gets_its_code() -> None:
    from probes.round.contracts.fidelity import verdict

    v = verdict((("arithmetic", False), ("copy", False), ("sorting", True)))
    assert v.code == "fidelity_unjudged"

