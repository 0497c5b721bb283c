"""The language judge's helpers: segments, encoding, leading garbage, repetition, lexicon."""

from __future__ import annotations

import pytest

from judge.replies.encoding import EncodingCode, find_corruption
from judge.replies.leading import find_leading_garbage
from judge.replies.lexicon import MIN_FOREIGN_MARKERS, find_word_mixing, looks_chinese
from judge.replies.repetition import MIN_SENTENCE_REPEATS, MIN_SINGLE_WORD_REPEATS, find_repetition
from judge.replies.segments import (
    DENSE_SCRIPT_WEIGHT,
    HANGUL,
    KANA,
    LATIN,
    THAI,
    segment,
    strip_markup,
)


def test_markup_and_urls_are_stripped_but_prose_is_kept() -> None:
    text = "**Bold** *action* see https://example.com/x?y=1 and `code` [link](http://a.b) <br>"
    stripped = " ".join(strip_markup(text).split())
    assert stripped == "Bold action see and link"


def test_dense_scripts_weigh_three_letters_per_character() -> None:
    (piece,) = segment("안녕하세요")
    assert piece.weight == 5 * DENSE_SCRIPT_WEIGHT
    assert piece.script == HANGUL


def test_sentences_split_at_sentence_ends_and_newlines() -> None:
    pieces = segment("Olá. Tudo bem?\nSim! 好的。行")
    assert [p.text for p in pieces] == ["Olá.", "Tudo bem?", "Sim!", "好的。", "行"]


def test_a_foreign_sentence_glued_to_thai_is_cut_at_the_script_change() -> None:
    pieces = segment("เธอยิ้มให้เขา This is clearly an English sentence ฝนตกหนักมาก")
    assert [p.script for p in pieces] == [THAI, LATIN, THAI]


def test_kanji_with_kana_is_japanese() -> None:
    (piece,) = segment("彼女は笑った")
    assert piece.script == KANA and piece.has_kana


@pytest.mark.parametrize(
    "text", ["Olá ¬¬ tudo bem?", "“Quoted” — dashes… and ‘single’ quotes", "中文文本，全角标点。", "Ça va? Très bien."]
)
def test_healthy_text_has_no_corruption(text: str) -> None:
    assert find_corruption(text) is None


@pytest.mark.parametrize(
    ("text", "needle", "code"),
    [("Ol\ufffd", "U+FFFD", EncodingCode.REPLACEMENT_CHAR), ("a\x00b", "U+0000", EncodingCode.CONTROL_CHARACTER),
     ("a\x85b", "U+0085", EncodingCode.CONTROL_CHARACTER), ("Ã© Ã§a", "mojibake", EncodingCode.MOJIBAKE)],
)
def test_corruption_is_named(text: str, needle: str, code: EncodingCode) -> None:
    found = find_corruption(text)
    assert found is not None and found.code == code and needle in found.reason, found


@pytest.mark.parametrize(
    "text", ["Hello", "*She smiles.*", "**Bold**", "\"Hi\"", "...Well.", "…Well.", "¿Qué?", "😏 Fine.",
             "  \n*waves*", "— Sim.", "「はい」", "3 days later.", "# Chapter", "(Later.)", "»Ja«, sagte sie.",
             "hmm... Okay.", "ok, then.", "well... fine", "ok.", "ok. Fine.", "no! Wait.", "Oui. Bien sûr.",
             "sí. Claro.", ". . . Silence.", "hmm. Right."]
)
def test_normal_starts_are_not_garbage(text: str) -> None:
    assert find_leading_garbage(text) is None


@pytest.mark.parametrize(
    "text", ['",Hello', "ing. The door", "</s>Hello", "<|im_end|>Hi", ".**She", ")The", "s,Hello", "\"」Hi",
             "*,She", "…,Oi", "tion*She", "ed.\"Hello", "ly. The", "er. She", "s. \"Thank you\""]
)
def test_stray_starts_are_garbage(text: str) -> None:
    assert getattr(find_leading_garbage(text), "reason", "").startswith("leading garbage:")


def test_a_template_token_anywhere_is_garbage() -> None:
    assert find_leading_garbage("Hello there.<|im_end|>") is not None


def test_a_sentence_repeated_enough_times_is_a_loop() -> None:
    sentence = "The wind howled through the broken window. "
    assert find_repetition(sentence * (MIN_SENTENCE_REPEATS - 1)) is None
    assert find_repetition(sentence * MIN_SENTENCE_REPEATS) is not None


def test_a_single_word_flood_is_a_loop_only_when_absurd() -> None:
    assert find_repetition("no " * 5) is None
    assert find_repetition("no " * MIN_SINGLE_WORD_REPEATS) is not None
    assert find_repetition("ㅋ" * 100) is None


def test_portuguese_with_spanish_function_words_is_mixed() -> None:
    text = ["Ela caminhó hasta la porta, pero não sabia.", "Y entonces ela olhou con medo, muy assustada."]
    result = find_word_mixing(text, "pt")
    assert result is not None and result[0] == "es"


def test_one_spanish_exclamation_is_not_mixing() -> None:
    text = ["Ela riu.", "¡Ay, caramba!", "Depois voltou para casa com a irmã e o cachorro."]
    assert find_word_mixing(text, "pt") is None


def test_foreign_markers_below_the_minimum_are_tolerated() -> None:
    few = " ".join(["y"] * (MIN_FOREIGN_MARKERS - 1))
    assert find_word_mixing([few, "o"], "pt") is None


def test_spanish_with_italian_function_words_is_mixed() -> None:
    text = ["Ella dijo che non sono molto cansada.", "Pero questo es anche il problema de la casa."]
    assert find_word_mixing(text, "es") is not None


@pytest.mark.parametrize(("text", "chinese"),
                         [("这是我们的房间", True), ("雨天深夜静寂", False), ("第三章手紙", False)])
def test_chinese_only_characters_tell_chinese_from_kanji(text: str, chinese: bool) -> None:
    assert looks_chinese(text) is chinese


def test_a_reply_opening_with_a_link_is_not_garbage() -> None:
    assert find_leading_garbage("https://github.com/pydantic/pydantic-ai is the repository.") is None
    assert find_leading_garbage("www.example.org has the map.") is None
