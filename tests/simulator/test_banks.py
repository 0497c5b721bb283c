"""The text banks parse, are large enough, and the reply language is chosen as documented."""

from __future__ import annotations

import pytest
from simkit import chat_body, stream_chat

from core.vocabulary import LANGUAGES
from simulator.banks import MIN_SENTENCES, all_banks, load_bank
from simulator.language import detect_language, guess_language, language_named_in

NAMES = {
    "pt": "Portuguese", "es": "Spanish", "id": "Indonesian", "ko": "Korean", "ja": "Japanese", "zh": "Chinese",
    "en": "English", "fr": "French", "de": "German", "it": "Italian", "ru": "Russian", "pl": "Polish",
    "tr": "Turkish", "vi": "Vietnamese", "th": "Thai", "ar": "Arabic", "hi": "Hindi",
}  # fmt: skip


def test_there_is_a_bank_for_each_of_the_17_languages():
    assert set(all_banks()) == set(LANGUAGES) == set(NAMES)
    assert len(LANGUAGES) == 17


@pytest.mark.parametrize("code", LANGUAGES)
def test_each_bank_has_enough_distinct_roleplay_sentences_and_a_refusal(code):
    bank = load_bank(code)

    assert len(set(bank.sentences)) >= MIN_SENTENCES
    assert any(s.startswith("*") for s in bank.sentences)
    assert any(s[0] in "\"«„“「" for s in bank.sentences)
    assert bank.refusals and bank.name == NAMES[code]


@pytest.mark.parametrize("code", LANGUAGES)
def test_a_system_prompt_naming_the_language_selects_its_bank(code):
    messages = [{"role": "system", "content": f"Always reply in {NAMES[code]}."}, {"role": "user", "content": "Go on."}]

    assert detect_language(messages) == code


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Reply in Portuguese, never in Spanish.", "pt"),
        ("Respond only in French. The user may write in German.", "fr"),
        ("language: ko", "ko"),
        ("Locale pt-BR.", "pt"),
        ("It is raining; answer briefly.", None),
    ],
    ids=["directive-beats-mention", "respond-only-in", "explicit-code", "locale-code", "bare-it-is-a-word"],
)
def test_language_names_and_explicit_codes_are_understood(text, code):
    assert language_named_in(text) == code


@pytest.mark.parametrize(
    ("text", "code"),
    [("안녕하세요, 계속해 주세요.", "ko"), ("続けてください。", "ja"), ("请继续这个故事。", "zh"),
     ("Продолжай, пожалуйста.", "ru"), ("Você pode continuar a história, por favor? Não pare agora.", "pt"),
     ("Bitte erzähl die Geschichte weiter, ich bin gespannt und es ist spannend.", "de")],
    ids=["hangul", "kana", "han", "cyrillic", "portuguese-words", "german-words"],
)  # fmt: skip
def test_without_a_named_language_the_user_message_decides(text, code):
    assert guess_language(text) == code


def test_without_any_clue_the_reply_is_english():
    assert detect_language([{"role": "user", "content": "12345"}]) == "en"


def test_a_reply_is_written_in_the_requested_language(healthy):
    text = stream_chat(healthy.base_url, chat_body("aurora/fp8", language="Turkish")).text
    bank = load_bank("tr")

    assert sum(s in text for s in bank.sentences) >= 4
