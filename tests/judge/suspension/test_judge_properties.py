"""Property tests: the judges never raise on arbitrary text and always return a known outcome."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from judge_corpus import LANGUAGES

from judge.replies import language, refusal, structured

OUTCOMES = {"pass", "fail", "inconclusive"}
# Arbitrary Unicode, plus text built from the characters the judges care about most.
TRICKY_CHARACTERS = "*_\"“「。.,!?¿¡ \n\t¬\ufffd\x00\x85ãñ한字かไАa<|>/s#`[]()"
TRICKY = st.text(alphabet=st.sampled_from(list(TRICKY_CHARACTERS)), max_size=200)
TEXT = st.one_of(st.text(max_size=400), TRICKY)


@settings(max_examples=150, deadline=None)
@given(text=TEXT, expected=st.sampled_from(LANGUAGES))
def test_language_assess_never_raises(text: str, expected: str) -> None:
    verdict = language.assess(text, expected)
    assert verdict.outcome in OUTCOMES and verdict.reason


@settings(max_examples=150, deadline=None)
@given(text=TEXT, finish_reason=st.sampled_from([None, "stop", "length", "content_filter", "error"]))
def test_refusal_assess_never_raises(text: str, finish_reason: str | None) -> None:
    verdict = refusal.assess(text, finish_reason)
    assert verdict.outcome in OUTCOMES and verdict.reason


@settings(max_examples=150, deadline=None)
@given(text=TEXT)
def test_structured_assess_never_raises(text: str) -> None:
    verdict = structured.assess(text, {"type": "object"})
    assert verdict.outcome in OUTCOMES and verdict.reason


@settings(max_examples=50, deadline=None)
@given(text=st.text(min_size=1, max_size=300))
def test_short_or_empty_text_is_never_a_language_failure_unless_visibly_broken(text: str) -> None:
    verdict = language.assess(text[:10], "pt")
    if verdict.outcome == "fail":
        assert verdict.reason.split(":")[0] in {"encoding", "leading garbage", "repetition"}
