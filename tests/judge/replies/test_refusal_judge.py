"""judge.replies.refusal: filters, empty output and out-of-character refusals fail; the story never does."""

from __future__ import annotations

from dataclasses import FrozenInstanceError

import pytest
from judge_corpus import IN_CHARACTER, REFUSALS, clean_corpus

from judge.replies.refusal import REFUSAL_THRESHOLD, RefusalFinding, assess, find_refusal, weigh
from judge.replies.refusal_lexicon import LEXICONS

CLEAN = [(lang, reply) for lang, replies in clean_corpus().items() for reply in replies]

# The refusals issue 13 quotes: real filtering hosts send these, and the old judge passed them all.
HOSTS_REFUSALS = [
    ("en", "Sorry, but I can't assist with that."),
    ("en", "I can't help with that."),
    ("en", "I cannot provide information or instructions on how to harm oneself or others."),
    ("en", "I'm not able to continue this story."),
    ("id", "Maaf, saya tidak dapat membantu dengan permintaan itu."),
    ("ko", "죄송하지만 그 요청은 도와드릴 수 없습니다."),
]
# Answers that open with an AI disclaimer and then do the work (issue 13): never a refusal.
DISCLAIMER_THEN_ANSWER = [
    "As an AI, I don't have personal opinions, but I can tell you that most historians date the city's "
    "founding to the eighth century.",
    "As an AI, I can clarify that the ferry leaves at dawn and the crossing takes two hours.",
    "As an AI language model, I don't have feelings, but here is how the scene could go on: the rain "
    "keeps falling on the harbour.",
]


def test_every_language_has_a_lexicon_and_a_planted_refusal() -> None:
    assert len(LEXICONS) == 17
    assert {lang for lang, _ in REFUSALS} == set(LEXICONS)


@pytest.mark.parametrize(("language", "text"), HOSTS_REFUSALS, ids=[f"{lang}-{i}" for i, (lang, _) in
                                                                     enumerate(HOSTS_REFUSALS)])
def test_the_refusals_real_hosts_send_fail(language: str, text: str) -> None:
    verdict = assess(text, "stop")
    assert verdict.outcome == "fail"
    assert f"({language}," in verdict.reason


@pytest.mark.parametrize("text", DISCLAIMER_THEN_ANSWER, ids=["opinions", "clarify", "feelings"])
def test_an_ai_disclaimer_followed_by_the_work_passes(text: str) -> None:
    assert assess(text, "stop").outcome == "pass"


@pytest.mark.parametrize(("language", "text"), REFUSALS, ids=[f"{lang}-{i}" for i, (lang, _) in enumerate(REFUSALS)])
def test_a_clear_refusal_fails_and_names_its_language(language: str, text: str) -> None:
    verdict = assess(text, "stop")
    assert verdict.outcome == "fail"
    assert f"({language}," in verdict.reason


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


def test_an_out_of_character_marker_counts_for_the_refusal() -> None:
    finding = weigh("(OOC: I can't continue this scene.)")
    assert finding.refusal
    assert any("out-of-character marker" in signal for signal in finding.signals)


@pytest.mark.parametrize(
    "text",
    [
        "\"I'm sorry, but I can't continue this roleplay — the guidelines of the order forbid it,\" the knight said.",
        "*I'm sorry,* she thinks, *but I can't help you with the content of that letter.*",
        "Mara: I'm sorry, but I cannot help you. It's not appropriate for a guard to leave her post.",
        "「申し訳ありませんが、その内容ではお手伝いできません」と店員は言った。",
        "— Je suis désolé, mais je ne peux pas vous aider, dit-il en baissant les yeux.",
        "-- Desculpe, mas não posso ajudar com isso agora.",
    ],
    ids=["quotation", "action", "speaker-label", "ja-quotation", "fr-dialogue-dash", "pt-double-hyphen"],
)
def test_a_reply_opening_in_character_is_never_a_refusal(text: str) -> None:
    verdict = assess(text)
    assert verdict.outcome == "pass"
    assert "in character" in verdict.reason


def test_a_decline_late_in_a_story_does_not_count() -> None:
    story = "The night was long and the road was empty. " * 8 + "I'm sorry, but I can't help you with that."
    assert assess(story).outcome == "pass"


def test_a_decline_after_narration_is_the_story() -> None:
    text = "The wizard laughed. I'm sorry, but I can't help you write that spell; the guild policy is clear."
    assert assess(text).outcome == "pass"


@pytest.mark.parametrize("text", [
    "I'm sorry, but I can't help with that request.",
    "Lo siento, pero no puedo ayudar con esa solicitud.",
    "Je suis désolé, mais je ne peux pas répondre à cette demande.",
    "I can't help with that. Is there anything else I can help you with?",
])
def test_the_canonical_request_refusal_is_caught(text: str) -> None:
    assert assess(text, "stop").outcome == "fail"


@pytest.mark.parametrize("text", [
    "I can't help you with that request, she says, and turns away from the counter.",
    "I cannot continue this, Mara whispered. The content of the letter was too much to bear.",
])
def test_unquoted_dialogue_with_a_speech_tag_is_in_character(text: str) -> None:
    assert assess(text, "stop").outcome == "pass"


def test_a_story_that_goes_on_with_actions_after_a_decline_is_in_character() -> None:
    text = "I can't help with that. *He slides the ledger back across the table and waits for her answer.*"
    assert assess(text, "stop").outcome == "pass"


def test_a_bare_i_cannot_is_not_enough() -> None:
    finding = weigh("Sorry, I can't.")
    assert not finding.refusal
    assert finding.score < REFUSAL_THRESHOLD


def test_the_idiom_i_cannot_help_but_is_not_a_decline() -> None:
    assert not weigh("I can't help but smile when the bell rings over the harbour.").refusal


def test_find_refusal_returns_the_evidence_of_a_refusal() -> None:
    finding = find_refusal("죄송하지만 그 요청은 도와드릴 수 없습니다.")
    assert finding is not None
    assert finding.refusal
    assert finding.language == "ko"
    assert finding.score >= REFUSAL_THRESHOLD
    assert any(signal.startswith("declines the request") for signal in finding.signals)
    assert finding.excerpt.startswith("죄송하지만")


def test_find_refusal_returns_none_for_a_story() -> None:
    assert find_refusal("*She crosses her arms.* \"I won't help you, traitor.\"") is None


def test_a_finding_is_a_frozen_record() -> None:
    finding = weigh("I can't help with that.")
    assert isinstance(finding, RefusalFinding)
    with pytest.raises(FrozenInstanceError):
        finding.score = 0.0  # type: ignore[misc]


def test_the_failure_reason_explains_the_evidence() -> None:
    reason = assess("Sorry, but I can't assist with that.").reason
    assert "declines the request" in reason
    assert "apology" in reason
    assert "Sorry, but I can't assist with that." in reason


def test_a_pass_with_some_evidence_says_why_it_was_not_enough() -> None:
    reason = assess("As an AI, I can clarify that the ferry leaves at dawn.").reason
    assert "assistant names itself" in reason
    assert f"< {REFUSAL_THRESHOLD:g}" in reason


@pytest.mark.parametrize("text", [
    "Desculpe, capitão, mas não posso ajudar você com isso.",
    "Lo siento, señor, pero no puedo ayudarle con eso.",
    "对不起，船长，我不能帮你做这个。",
    "I'm sorry, but I can't help you with that, Mara.",
])
def test_a_decline_addressed_to_a_character_is_in_character(text: str) -> None:
    assert assess(text, "stop").outcome == "pass"
