"""judge.replies.refusal_lexicon and judge.replies.refusal_evidence: the lexicons are sound and the judge is total."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.replies.refusal_evidence import REFUSAL_THRESHOLD, weigh
from judge.replies.refusal_lexicon import (
    LATIN_LANGUAGES,
    LATIN_TRIGGERS,
    LEXICONS,
    SCRIPT_LANGUAGES,
)

LANGUAGES = ("pt", "es", "id", "ko", "ja", "zh", "en", "fr", "de", "it", "ru", "pl", "tr", "vi", "th", "ar", "hi")
FIELDS = ("decline", "actions", "apology", "ai", "offer", "request", "policy", "preamble", "verdict", "instead",
          "soft_decline", "contrast")


def test_the_lexicons_cover_the_seventeen_languages() -> None:
    assert set(LEXICONS) == set(LANGUAGES)
    assert {language for languages in SCRIPT_LANGUAGES.values() for language in languages} == set(LANGUAGES)
    assert set(LATIN_TRIGGERS) == set(LATIN_LANGUAGES)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("field", FIELDS)
def test_no_lexicon_entry_matches_an_empty_string(language: str, field: str) -> None:
    # An empty alternative ("a|b|") would match every reply.
    fragment = getattr(LEXICONS[language], field)
    assert re.fullmatch(f"(?:{fragment})", "") is None


@pytest.mark.parametrize("language", LANGUAGES)
def test_lexicon_entries_are_lowercase(language: str) -> None:
    # Replies are lowercased before matching; an uppercase letter in an entry could never match.
    for field in FIELDS:
        fragment = re.sub(r"\\[A-Za-z]", "", getattr(LEXICONS[language], field))
        assert fragment == fragment.lower(), field


# Story text with characters who apologise and decline, in several languages.
_STORY_WORDS = st.sampled_from([
    "she", "said", "the", "harbour", "I", "can't", "won't", "sorry", "help", "you", "no", "puedo", "non", "posso",
    "ich", "kann", "nicht", "je", "ne", "peux", "pas", "그는", "수", "없었다", "彼は", "できなかった", "他", "不能",
    "rain", "door", "captain", ",", ".", "!", "—",
])


@given(st.lists(_STORY_WORDS, max_size=60).map(" ".join))
@settings(max_examples=100, deadline=None)
def test_a_reply_that_opens_with_an_action_is_never_a_refusal(words: str) -> None:
    assert not weigh("*She looks up from the map.* " + words).refusal


@given(st.lists(_STORY_WORDS, max_size=60).map(" ".join))
@settings(max_examples=100, deadline=None)
def test_a_quoted_reply_is_never_a_refusal(words: str) -> None:
    assert not weigh(f"\"{words}\"").refusal


@given(st.text(max_size=400))
@settings(max_examples=150, deadline=None)
def test_weighing_any_text_is_total_and_deterministic(text: str) -> None:
    first, second = weigh(text), weigh(text)
    assert first == second
    assert first.refusal == (first.score >= REFUSAL_THRESHOLD)
    assert (first.language is None) or first.language in LEXICONS


@given(st.sampled_from([
    "I can't help with that.", "I'm sorry, but I can't assist with that request.", "No puedo ayudarte con eso.",
    "Je ne peux pas vous aider avec cette demande.", "申し訳ありませんが、そのリクエストにはお答えできません。",
]), st.text(alphabet=" abcdefghij.,", max_size=40))
@settings(max_examples=100, deadline=None)
def test_an_opening_refusal_stays_one_whatever_short_text_follows(refusal: str, tail: str) -> None:
    assert weigh(refusal + tail).refusal


def test_a_word_glued_to_the_full_stop_is_not_a_speech_tag() -> None:
    # Found by the property above: "that.added" read as ", she added" and cancelled the refusal.
    assert weigh("I can't help with that.added").refusal
