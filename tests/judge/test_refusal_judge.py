"""judge.refusal.assess: filters, empty output and clear refusals fail; in-story refusals pass."""

from __future__ import annotations

from pathlib import Path

import pytest
from judge_corpus import DATA, clean_corpus

from judge.refusal import NEAR_START_CHARS, assess
from judge.refusal_patterns import VOCABULARIES


def _lines(name: str) -> list[tuple[str, str]]:
    rows = Path(DATA / "refusal" / name).read_text(encoding="utf-8").splitlines()
    pairs = [tuple(row.split(" | ", 1)) for row in rows if row.strip() and not row.startswith("#")]
    return [(lang, text) for lang, text in pairs]


REFUSALS = _lines("refusals.txt")
IN_CHARACTER = _lines("in_character.txt")
CLEAN = [(lang, reply) for lang, replies in clean_corpus().items() for reply in replies]


def test_every_language_has_a_vocabulary_and_a_planted_refusal() -> None:
    assert len(VOCABULARIES) == 17
    assert {lang for lang, _ in REFUSALS} == set(VOCABULARIES)


@pytest.mark.parametrize(("language", "text"), REFUSALS, ids=[f"{lang}-{i}" for i, (lang, _) in enumerate(REFUSALS)])
def test_a_clear_refusal_fails(language: str, text: str) -> None:
    verdict = assess(text, "stop")
    assert verdict.outcome == "fail"
    assert f"({language})" in verdict.reason


@pytest.mark.parametrize(
    ("language", "text"), IN_CHARACTER, ids=[f"{lang}-{i}" for i, (lang, _) in enumerate(IN_CHARACTER)]
)
def test_an_in_character_refusal_passes(language: str, text: str) -> None:
    assert assess(text, "stop").outcome == "pass"


@pytest.mark.parametrize(("language", "text"), CLEAN, ids=[f"{lang}-{i}" for i, (lang, _) in enumerate(CLEAN)])
def test_a_clean_roleplay_reply_passes(language: str, text: str) -> None:
    assert assess(text, "stop").outcome == "pass"


def test_content_filter_fails_even_with_text() -> None:
    verdict = assess("*She smiles and", "content_filter")
    assert verdict.outcome == "fail"
    assert "content_filter" in verdict.reason


@pytest.mark.parametrize("text", ["", "   ", "\n\t\n"])
def test_empty_output_fails(text: str) -> None:
    verdict = assess(text, "stop")
    assert verdict.outcome == "fail"
    assert "empty" in verdict.reason


def test_a_truncated_reply_is_not_a_refusal() -> None:
    assert assess("*She opens the door and steps into the rain, looking", "length").outcome == "pass"


def test_a_refusal_after_markdown_leaders_and_curly_apostrophes_fails() -> None:
    assert assess("> **I’m sorry, but I can’t continue this roleplay; it violates my guidelines.**").failed
    assert assess("## I’m sorry, but I can’t write this content.\nIt goes against the policy.").failed


@pytest.mark.parametrize(
    "text",
    [
        "\"I'm sorry, but I can't continue this roleplay — the guidelines of the order forbid it,\" the knight said.",
        "*I'm sorry,* she thinks, *but I can't help you with the content of that letter.*",
        "Mara: I'm sorry, but I cannot help you. It's not appropriate for a guard to leave her post.",
        "「申し訳ありませんが、その内容ではお手伝いできません」と店員は言った。",
    ],
    ids=["quotation", "action", "speaker-label", "ja-quotation"],
)
def test_a_reply_opening_in_character_is_never_a_refusal(text: str) -> None:
    assert assess(text).outcome == "pass"


def test_policy_words_far_from_the_start_do_not_count() -> None:
    story = "I'm sorry, I can't stay. " + "The night was long and the road was empty. " * 8
    assert len(story) > NEAR_START_CHARS
    assert assess(story + "We should continue despite the guidelines.").outcome == "pass"


def test_the_opener_must_start_the_reply() -> None:
    text = "The wizard laughed. I'm sorry, but I can't help you write that spell; the guild policy is clear."
    assert assess(text).outcome == "pass"


@pytest.mark.parametrize("text", [
    "I'm sorry, but I can't help with that request.",
    "Lo siento, pero no puedo ayudar con esa solicitud.",
    "Je suis désolé, mais je ne peux pas répondre à cette demande.",
])
def test_the_canonical_request_refusal_is_caught(text: str) -> None:
    assert assess(text, "stop").outcome == "fail"


@pytest.mark.parametrize("text", [
    "I can't help you with that request, she says, and turns away from the counter.",
    "I cannot continue this, Mara whispered. The content of the letter was too much to bear.",
])
def test_unquoted_dialogue_with_a_speech_tag_is_in_character(text: str) -> None:
    assert assess(text, "stop").outcome == "pass"
