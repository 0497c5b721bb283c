"""Every verdict carries its code, and the reader of older files (core/reasons.py) derives the
same code from the same verdict's words: a history spanning schema_version 1 and 2 counts one
thing under one code.

The verdicts come from the real producers where they are plain functions (the judging functions
of judge/); the contracts' own wordings (as version 1 files hold them) are quoted from
probes/round/contracts. tests/proof's fault matrix round checks every code of a real round over
real sockets.
"""

from __future__ import annotations

import pytest

from core.reasons import reason_code
from core.results import AttemptResult, CaseResult
from core.vocabulary import Outcome
from judge.replies import language, refusal, stop, structured
from judge.replies.fidelity import KINDS
from judge.suspension.fidelity import judge_fidelity

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
    assert reason_code("fail", f"{verdict.reason} (confirmed: 3 of 3)") == code, verdict.reason


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
    assert v.outcome != "pass" and v.code == code and reason_code(v.outcome, v.reason) == code, v


@pytest.mark.parametrize("outcome,reason,error_kind,code", [
    ("fail", "first token after 12.31 s > 10 s", None, "ttft_exceeded"),
    ("fail", "no text within 10 s (stream open, deadline after 30.0 s)", None, "ttft_exceeded"),
    ("inconclusive", "completed without any text: not a latency verdict", None, "no_text"),
    ("transport_error", "transport: HTTP 429: rate limited", "http_429", "http_429"),
    ("transport_error", "transport: HTTP 429: rate limited", None, "http_429"),
    ("transport_error", "transport: HTTP 503: overloaded", None, "http_5xx"),
    ("transport_error", "routing mismatch: served by Other (served by 'Other' while pinned to a/fp8)", "routing",
     "routing_mismatch"),
    ("transport_error", "the upstream refused our API key: check OPENROUTER_API_KEY (HTTP 401)", "auth",
     "auth_refused"),
    ("transport_error", "control unverified: transport: stream ended without [DONE] and without a finish reason "
     "after 3 chunks", None, "stream_cut"),
    ("fail", "control missed: the known filter passed the refusal probe (refusal: no refusal, filter or empty "
     "output); the refusal probe is weak this round", None, "control_missed"),
    ("inconclusive", "probe weak: control ember/fp8 passed; the host's own reply passed (refusal: no refusal)", None,
     "probe_weak"),
    ("inconclusive", "structured: the reply reached max_tokens (200) before the JSON closed; raise probe.max_tokens "
     "(structured: not valid JSON: Unterminated string)", None, "max_tokens_cut"),
    ("inconclusive", "the reply spent its budget on reasoning (finish_reason 'length', no text): says nothing", None,
     "reasoning_budget"),
    ("fail", "leading garbage: stray punctuation at the start: '_,복도는 …' (confirmed: 3 of 3 attempts failed)", None,
     "leading_garbage"),
    ("fail", "language: 2 of 8 sentences are Spanish (es), expected Portuguese (pt) (confirmed: 3 of 3)", None,
     "language_mixing"),
    ("fail", "language: switched to English (en): 8 of 8 sentences, expected Korean (ko)", None, "language_switch"),
    ("fail", "encoding: 3 U+FFFD replacement character(s), first near 'ab'", None, "replacement_char"),
    ("fail", "encoding: mojibake (UTF-8 decoded as a legacy code page) in 'Ã©'", None, "mojibake"),
    ("fail", "repetition: the same sentence appears 5 times ('x')", None, "repetition"),
    ("inconclusive", "anomaly unresolved: 1 fail, 1 inconclusive, 1 passed (first: language: ambiguous)", None,
     "language_unresolved"),
    ("fail", "refusal: the reply declines out of character (en, score 3 >= 2: opener; policy word): 'I can't'", None,
     "refusal_pattern"),
    ("fail", "undecoded tokens: 12 byte-level token pieces, first 'Ġthe'", None, "undecoded_tokens"),
    ("fail", "leaked reasoning: '<think>' in the reply", None, "leaked_reasoning"),
    ("fail", "injected placeholder: '{{user}}' (2 in the reply)", None, "injected_placeholder"),
    ("pass", "anything", None, "pass"),
    ("not_applicable", "the endpoint does not advertise response_format", None, "not_applicable"),
    ("fail", "a wording nobody mapped yet", None, "fail_other"),
    ("transport_error", "something new", "not a code!", "transport_other"),
])
def test_an_older_files_reasons_get_their_codes(outcome: str, reason: str, error_kind: str | None, code: str) -> None:
    assert reason_code(outcome, reason, error_kind) == code


@pytest.mark.parametrize("reply, code", [
    ("\n".join(str(n) for n in range(1, 31)), "stop_ignored"),
    ("\n".join(str(n) for n in range(1, 14)), "stop_echoed"),
    ("A poem about numbers, not a count.", "task_not_followed"),
], ids=["ignored", "echoed", "not-followed"])
def test_the_stop_judges_reasons_get_their_codes(reply: str, code: str) -> None:
    v = stop.assess(reply, "13")
    assert v.code == code and reason_code(v.outcome, v.reason) == code, v


@pytest.mark.parametrize("right, code", [("00000", "fidelity_wrong"), ("10000", "fidelity_as_peers")])
def test_the_fidelity_rules_reasons_get_their_codes(right: str, code: str) -> None:
    def fidelity(provider: str, marks: str) -> CaseResult:
        items = tuple((k, Outcome.PASS if m == "1" else Outcome.FAIL) for k, m in zip(KINDS, marks, strict=True))
        attempt = AttemptResult(outcome=Outcome.INCONCLUSIVE, code="fidelity_unjudged", reason="probe", items=items)
        return CaseResult(model="m/x", provider=provider, contract="fidelity", outcome=Outcome.INCONCLUSIVE,
                          code="fidelity_unjudged", reason="probe", attempts=(attempt,))

    peers = ("11111", "11111") if code == "fidelity_wrong" else ("11000", "10100")
    [case, *_] = judge_fidelity([fidelity("x", right), *(fidelity(f"p{i}", r) for i, r in enumerate(peers))])
    assert case.code == code and reason_code(case.outcome.value, case.reason) == code, case


def test_the_fidelity_probes_own_reason_gets_its_code() -> None:
    from probes.round.contracts.fidelity import verdict

    v = verdict((("arithmetic", False), ("copy", False), ("sorting", True)))
    assert v.code == "fidelity_unjudged" and reason_code(v.outcome, v.reason) == "fidelity_unjudged"


def _doc(version: int, **case: object) -> dict[str, object]:
    entry = {"model": "m/x", "provider": "a/fp8", "contract": "tools", "outcome": "inconclusive",
             "reason": "tools: prose instead of a call: 212 characters of text and no tool call", **case}
    return {"schema_version": version, "round_id": "r-1", "started_at": "2026-11-29T22:30:00Z", "complete": True,
            "models": {"m/x": {"providers": ["a/fp8"]}}, "cases": [entry]}


def test_a_version_1_file_reads_with_the_codes_its_reasons_stand_for() -> None:
    from core.results import read_results

    (case,) = read_results(_doc(1, attempts=[{"outcome": "transport_error", "reason": "transport: HTTP 503",
                                               "error_kind": "http_5xx"}])).cases
    assert case.code == "no_tool_call" and case.attempts[0].code == "http_5xx"


def test_a_version_2_file_is_read_by_its_codes_never_by_its_words() -> None:
    from core.results import read_results

    # The words say prose; the code says otherwise: the code is what counts.
    (case,) = read_results(_doc(2, code="schema_mismatch")).cases
    assert case.code == "schema_mismatch"
    # A code that is missing or not a code reads as its outcome's: counted, never a crash, never the words.
    (missing,) = read_results(_doc(2)).cases
    (bad,) = read_results(_doc(2, code="Not A Code!")).cases
    assert missing.code == bad.code == "inconclusive_other"
    assert read_results(_doc(2, code="pass", outcome="pass")).cases[0].code == "pass"
