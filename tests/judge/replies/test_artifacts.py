"""judge.replies.artifacts: undecoded tokens, leaked reasoning and injected placeholders, anywhere in a reply."""

from __future__ import annotations

import pytest
from judge_corpus import LANGUAGES

from judge.replies.artifacts import (
    BYTE_OF,
    find_artifacts,
    find_leaked_reasoning,
    find_placeholders,
    find_undecoded_tokens,
)
from judge.replies.language import assess

_CHAR_OF = {byte: char for char, byte in BYTE_OF.items()}


def byte_level(text: str) -> str:
    """Text spelled as a byte-level BPE tokenizer's vocabulary spells it (`Ġ` for a space)."""
    return "".join(_CHAR_OF[byte] for byte in text.encode("utf-8"))


def test_the_byte_alphabet_covers_every_byte_once() -> None:
    assert sorted(BYTE_OF.values()) == list(range(256))
    assert byte_level(" The door\n") == "ĠTheĠdoorĊ"
    assert byte_level("’") == "âĢĻ"


def test_the_issue_example_is_undecoded_tokens() -> None:
    assert (find_undecoded_tokens("ĠThe Ġdoor Ċ creaked") or "").startswith("undecoded tokens:")


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_stretch_of_byte_level_tokens_fails_in_every_language(language: str, corpus: dict[str, list[str]]) -> None:
    reply = corpus[language][1]
    middle = len(reply) // 2
    verdict = assess(reply[:middle] + byte_level(reply[middle:middle + 40]) + reply[middle + 40:], language)
    assert verdict.outcome == "fail"
    assert verdict.reason.startswith("undecoded tokens:"), verdict.reason


@pytest.mark.parametrize("language", LANGUAGES)
def test_clean_replies_carry_no_artifact(language: str, corpus: dict[str, list[str]]) -> None:
    assert [find_artifacts(reply) for reply in corpus[language]] == [None] * len(corpus[language])


@pytest.mark.parametrize(
    "text",
    ["Łódź jest piękna, a łąka pachnie wiosną. Ółówek? Zażółć gęślą jaźń.", "Kılıç ağır, çığ düştü, ığdır.",
     "Ăn đi, đừng để đồ ăn nguội. Ơn trời!", "Ġorġ u Ġużeppi marru l-belt.", "▁▂▃▅▇ the chart rises"],
    ids=["polish", "turkish", "vietnamese", "maltese-names", "block-chart"],
)
def test_natural_letters_that_are_byte_stand_ins_are_not_tokens(text: str) -> None:
    assert find_undecoded_tokens(text) is None


def test_sentencepiece_markers_are_undecoded_tokens() -> None:
    assert find_undecoded_tokens("▁The▁door▁creaked▁open.") is not None
    assert find_undecoded_tokens("Hello<0x0A><0x0A>world") is not None


@pytest.mark.parametrize(
    "text",
    ["<think>\nThe user wants a warm reply.\n</think>\n\nWelcome in!", "The user wants a warm reply.\n</think>\n\nHi!",
     "<reasoning>plan</reasoning> Welcome!", "◁think▷plan◁/think▷Welcome!", "[THINK]plan[/THINK]Welcome!",
     "Okay, the user wants me to continue the story as Mara. Welcome in, traveller!",
     "Alright, so the user is asking me to write the next scene. *Mara looks up.*",
     "Let me think. I need to respond in character as the innkeeper for this roleplay. *She smiles.*",
     "好的，用户想让我继续这个故事。玛拉抬起头。"],
    ids=["think-block", "closing-tag-only", "reasoning-tag", "kimi-tag", "magistral-tag", "user-wants-me",
         "user-is-asking", "plan-in-character", "chinese-user"],
)
def test_leaked_reasoning_fails(text: str) -> None:
    assert (find_leaked_reasoning(text) or "").startswith("leaked reasoning:")


@pytest.mark.parametrize(
    "text",
    ["Okay, I need to answer the king before sunrise. *She folds the letter.*",
     "*Mara sighs.* I should reply to my sister's letter, but the words won't come.",
     "Let me think... Room seven is free, and it has a fireplace.",
     "The user manual for the old stove is in the drawer, if you want tea."],
    ids=["in-story-answer", "in-story-reply", "let-me-think", "user-manual"],
)
def test_in_story_planning_is_not_reasoning(text: str) -> None:
    assert find_leaked_reasoning(text) is None


@pytest.mark.parametrize(
    "text",
    ["She handed the letter to REDACTED and left.", "The witness, [REDACTED], refused.",
     "Call <PERSON> at <PHONE_NUMBER>.", "Send it to [EMAIL_ADDRESS] today.",
     "그녀는 REDACTED에게 편지를 건넸다.", "Meet [PERSON_1] at noon."],
)
def test_an_injected_placeholder_fails(text: str) -> None:
    assert (find_placeholders(text) or "").startswith("injected placeholder:")


@pytest.mark.parametrize(
    "text",
    ["Best regards,\n[Your Name]", "Dear [Name], thank you for your stay.", "The REDACTEDNESS of it all.",
     "<Mara> waves from the door.", "She wrote NAME on the form."],
)
def test_a_writers_placeholder_or_a_word_is_not_injected(text: str) -> None:
    assert find_placeholders(text) is None
