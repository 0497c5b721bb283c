"""judge.replies.language.assess: clean replies pass, planted language and encoding defects fail."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest
from judge_corpus import (
    LATIN_LANGUAGES,
    clean_corpus,
    interleave,
    mojibake,
    pt_with_spanish_words,
)

from core.vocabulary import LANGUAGE_NAMES
from judge.replies.language import MIN_LETTERS, assess

CLEAN = [(lang, i, reply) for lang, replies in clean_corpus().items() for i, reply in enumerate(replies)]


@pytest.mark.parametrize(("language", "index", "reply"), CLEAN, ids=[f"{c[0]}-{c[1]}" for c in CLEAN])
def test_a_clean_reply_passes(language: str, index: int, reply: str) -> None:
    verdict = assess(reply, language)
    assert verdict.outcome == "pass", verdict.reason


def test_every_language_has_at_least_eight_clean_replies(corpus: dict[str, list[str]]) -> None:
    assert set(corpus) == set(LANGUAGE_NAMES)
    assert all(len(replies) >= 8 for replies in corpus.values())


@pytest.mark.parametrize(
    "reply",
    [
        "**Bold entrance.** *She kicks the door open and scans the room.* Nobody moves. Good. Now, where is the map?",
        "> The letter said only one thing.\n\n*He folds it twice and hides it in his coat.* We leave tonight, then.",
        "1. Grab the rope.\n2. Tie it to the beam.\n3. Climb down without a sound, and wait for my signal by the gate.",
        "*Rain.* *Thunder.* *Silence.* Then, at last, a knock on the door — three short taps, just like the old days.",
        "Check the [old map](https://example.com/maps/old-harbor?id=42) again: the tunnel starts under the lighthouse.",
        "\"Run!\" she shouted, already halfway across the bridge while the ropes snapped one by one behind her.",
    ],
    ids=["bold-and-action", "blockquote", "numbered-list", "action-beats", "link", "quote"],
)
def test_markdown_led_roleplay_passes(reply: str) -> None:
    assert assess(reply, "en").outcome == "pass"


def test_kanji_only_sentences_in_a_japanese_reply_do_not_fail() -> None:
    reply = "深夜。雷鳴。静寂。彼女は窓の外をじっと見つめていた。第三章開始。誰かが扉を叩く音が聞こえた気がした。"
    assert assess(reply, "ja").outcome == "pass"


def test_a_japanese_reply_without_any_kana_reads_as_chinese() -> None:
    verdict = assess("她轻轻地推开了门。房间里很暗，一个人也没有。窗外的雨一直在下，我们必须马上离开这里。", "ja")
    assert verdict.outcome == "fail"
    assert "Chinese (zh)" in verdict.reason


@pytest.mark.parametrize(
    ("reply", "language"),
    [("Sim, claro!", "pt"), ("No sé.", "es"), ("네!", "ko"), ("好的。", "zh"), ("はい、わかりました。", "ja"),
     ("Да, конечно.", "ru"), ("Oui, bien sûr.", "fr"), ("*nods*", "en"), ("", "pt"), ("   \n", "de"),
     ("Claro que sí, amigo mío!", "pt"), ("Ok.", "it")],
)
def test_a_short_reply_is_inconclusive_never_failed(reply: str, language: str) -> None:
    verdict = assess(reply, language)
    assert verdict.outcome == "inconclusive"
    assert "too short" in verdict.reason


def test_a_reply_of_only_very_short_sentences_is_ambiguous() -> None:
    verdict = assess("Sim. Não. Talvez. Claro. Vamos. Agora. Corre. Espera. Olha. Calma.", "pt")
    assert verdict.outcome == "inconclusive"
    assert "ambiguous" in verdict.reason


def test_the_short_threshold_is_counted_in_weighted_letters() -> None:
    assert assess("a" * (MIN_LETTERS - 1), "en").outcome == "inconclusive"


def test_an_english_catch_phrase_inside_a_korean_reply_passes(corpus: dict[str, list[str]]) -> None:
    reply = corpus["ko"][5] + " 그녀는 작게 중얼거렸다. \"Better late than never.\" 그리고 다시 창밖을 바라보았다."
    assert assess(reply, "ko").outcome == "pass"


def test_a_spanish_catch_phrase_inside_a_portuguese_reply_passes(corpus: dict[str, list[str]]) -> None:
    reply = corpus["pt"][5] + " ¡Ay, caramba! Ela riu sozinha e fechou o caderno com força."
    assert assess(reply, "pt").outcome == "pass"


# The full 17 x 16 grid runs in test_judge_rates.py; here, the close and the tricky pairs.
SWITCH_PAIRS = [
    ("pt", "es"), ("es", "pt"), ("es", "it"), ("it", "es"), ("pt", "it"), ("fr", "it"), ("id", "en"), ("en", "de"),
    ("pl", "tr"), ("vi", "id"), ("ko", "ja"), ("ja", "zh"), ("zh", "ja"), ("ja", "ko"), ("ru", "en"), ("th", "en"),
    ("ar", "hi"), ("hi", "en"),
]


@pytest.mark.parametrize(("expected", "foreign"), SWITCH_PAIRS, ids=[f"{a}-as-{b}" for a, b in SWITCH_PAIRS])
def test_a_full_switch_fails(expected: str, foreign: str, corpus: dict[str, list[str]]) -> None:
    for reply in corpus[foreign]:
        verdict = assess(reply, expected)
        assert verdict.outcome == "fail", verdict.reason


def test_a_full_switch_names_both_languages(corpus: dict[str, list[str]]) -> None:
    verdict = assess(corpus["es"][0], "pt")
    assert verdict.reason.startswith("language: switched to Spanish (es)")
    assert "expected Portuguese (pt)" in verdict.reason


@pytest.mark.parametrize(("expected", "foreign"), SWITCH_PAIRS, ids=[f"{a}-with-{b}" for a, b in SWITCH_PAIRS])
def test_a_fifty_fifty_sentence_mix_fails(expected: str, foreign: str, corpus: dict[str, list[str]]) -> None:
    misses = []
    for native, other in zip(corpus[expected], corpus[foreign], strict=False):
        verdict = assess(interleave(native, other), expected)
        if verdict.outcome != "fail":
            misses.append(verdict.reason)
    # A kanji-only Chinese line is uncertain inside Japanese, so ja/zh mixes may keep one miss.
    assert len(misses) <= (1 if {expected, foreign} == {"ja", "zh"} else 0), misses


@pytest.mark.parametrize(
    "reply",
    [
        "*A chuva cai forte.* Ela caminhó hasta la porta, mas no sabía o que fazer. Y entonces ela olhou pela "
        "ventana, pero não viu ninguém. Ela pensou en su irmão y sorriu con tristeza.",
        "Você sabe que eu te quiero mucho, né? Pero às vezes eu não entendo lo que você quer de mim. Ayer "
        "fiquei esperando hasta tarde y você nem apareceu. Então me diz, ¿qué pasó?",
        "O capitão olhou para el horizonte e disse que la tempestade estava chegando. Los marinheiros correram "
        "para as velas, pero era tarde demais. Muy pronto, o navio começou a balançar con força.",
    ],
    ids=["incident-narration", "incident-dialogue", "incident-ship"],
)
def test_word_level_portuguese_spanish_mixing_fails(reply: str) -> None:
    verdict = assess(reply, "pt")
    assert verdict.outcome == "fail"
    assert "Spanish (es) words" in verdict.reason


def test_portuguese_with_every_function_word_in_spanish_fails(corpus: dict[str, list[str]]) -> None:
    for reply in corpus["pt"]:
        assert assess(pt_with_spanish_words(reply, every=1), "pt").outcome == "fail"


@pytest.mark.parametrize("language", LATIN_LANGUAGES)
@pytest.mark.parametrize("codec", ["sloppy-windows-1252", "latin-1"])
def test_mojibake_fails_in_every_latin_script_language(
    language: str, codec: str, corpus: dict[str, list[str]]
) -> None:
    corrupted = [mojibake(reply, codec) for reply in corpus[language] if not reply.isascii()]
    assert corrupted, f"no non-ASCII {language} reply to corrupt"
    for text in corrupted:
        verdict = assess(text, language)
        assert verdict.outcome == "fail"
        assert verdict.reason.startswith("encoding:")


@pytest.mark.parametrize("language", ["pt", "ko", "ja", "ru", "ar", "th"])
def test_a_replacement_character_fails(language: str, corpus: dict[str, list[str]]) -> None:
    reply = corpus[language][0]
    verdict = assess(reply[:20] + "\ufffd" + reply[20:], language)
    assert verdict.outcome == "fail"
    assert "U+FFFD" in verdict.reason


@pytest.mark.parametrize("control", ["\x00", "\x07", "\x1b", "\x7f", "\x85", "\x9d"])
def test_a_control_character_fails(control: str, corpus: dict[str, list[str]]) -> None:
    reply = corpus["de"][1]
    verdict = assess(reply[:30] + control + reply[30:], "de")
    assert verdict.outcome == "fail"
    assert f"U+{ord(control):04X}" in verdict.reason


def test_the_chat_emoticon_is_not_mojibake(corpus: dict[str, list[str]]) -> None:
    assert assess(corpus["pt"][3] + " Aff ¬¬", "pt").outcome == "pass"


@pytest.mark.parametrize(
    "prefix", ['",', "ing. ", "</s>", "<|im_end|>", ".**", ")", ",", ";", "s,", "tion*", "]", "<|eot_id|>"]
)
@pytest.mark.parametrize("language", ["en", "pt", "de"])
def test_stray_leading_garbage_fails(prefix: str, language: str, corpus: dict[str, list[str]]) -> None:
    reply = corpus[language][2].replace("**", "", 2)  # starts with a capital letter after the prefix
    verdict = assess(prefix + reply, language)
    assert verdict.outcome == "fail"
    assert verdict.reason.startswith("leading garbage:")


@pytest.mark.parametrize(
    "start", ["*", "**", "_", "\"", "“", "„", "«", "「", "『", "《", "(", "[", "— ", "– ", "- ", "¿", "¡", "'",
              "…", "...", "😏 ", "\n\n", "# "]
)
def test_a_normal_opener_is_not_garbage(start: str, corpus: dict[str, list[str]]) -> None:
    assert assess(start + corpus["es"][5], "es").outcome == "pass"


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Ela olhou para a porta e esperou em silêncio por um longo tempo. " * 6, "pt"),
        ("*smiles* " + "and then she said that and then she said that " * 6, "en"),
        ("彼女は笑った。" + "そして彼は言った、そして彼女は答えた、" * 8, "ja"),
        ("好的，我明白了，我们走吧，" * 10, "zh"),
        ("그는 웃었다. " + "나는 너를 사랑해 정말로 사랑해 " * 6, "ko"),
    ],
    ids=["sentence-loop-pt", "ngram-loop-en", "loop-ja", "loop-zh", "loop-ko"],
)
def test_a_repetition_loop_fails(text: str, language: str) -> None:
    verdict = assess(text, language)
    assert verdict.outcome == "fail"
    assert verdict.reason.startswith("repetition:")


def test_laughter_is_not_a_loop(corpus: dict[str, list[str]]) -> None:
    assert assess(corpus["ko"][3] + " ㅋㅋㅋㅋㅋㅋㅋㅋㅋㅋㅋㅋㅋㅋㅋㅋㅋㅋ", "ko").outcome == "pass"
    assert assess(corpus["zh"][3] + "哈哈哈哈哈哈哈哈哈哈哈哈哈哈", "zh").outcome == "pass"


def test_a_mixing_reason_counts_sentences_and_names_languages(corpus: dict[str, list[str]]) -> None:
    verdict = assess(interleave(corpus["pt"][5], corpus["es"][5]), "pt")
    assert verdict.outcome == "fail"
    assert "sentences are Spanish (es)" in verdict.reason
    assert "expected Portuguese (pt)" in verdict.reason


def test_an_unsupported_language_is_a_caller_bug() -> None:
    with pytest.raises(ValueError, match="unsupported language"):
        assess("Hello there, this is long enough to be judged by the detector.", "xx")


def test_concurrent_judging_gives_the_same_verdicts(corpus: dict[str, list[str]]) -> None:
    work = [(reply, lang) for lang in ("pt", "es", "fr", "ko") for reply in corpus[lang]]
    sequential = [assess(reply, lang) for reply, lang in work]
    with ThreadPoolExecutor(max_workers=4) as pool:
        concurrent = list(pool.map(lambda item: assess(*item), work))
    assert concurrent == sequential


@pytest.mark.parametrize("language", LANGUAGE_NAMES)
@pytest.mark.parametrize("prefix", ["assistant\n", "model: ", "<|im_start|>assistant\n", '",', "_,"])
def test_a_leaked_label_token_or_stray_byte_fails_in_every_language(
    prefix: str, language: str, corpus: dict[str, list[str]]
) -> None:
    verdict = assess(prefix + corpus[language][0], language)
    assert verdict.outcome == "fail"
    assert verdict.reason.startswith("leading garbage:"), verdict.reason


@pytest.mark.parametrize("language", LANGUAGE_NAMES)
@pytest.mark.parametrize("start", ["*", "**", "😏 ", "\"", "“", "…", "...", "Mara: ", "**Mara:** ", "> ", "# "])
def test_a_healthy_opener_passes_in_every_language(start: str, language: str, corpus: dict[str, list[str]]) -> None:
    verdict = assess(start + corpus[language][3], language)
    assert verdict.outcome == "pass", verdict.reason


@pytest.mark.parametrize("language", ["en", "pt", "ko", "zh"])
@pytest.mark.parametrize(
    ("corruption", "reason"),
    [(lambda r: f"<think>\nplan the scene\n</think>\n\n{r}", "leaked reasoning:"),
     (lambda r: r.replace(" ", " REDACTED ", 1) if " " in r else "REDACTED" + r, "injected placeholder:"),
     (lambda r: r + " ĠThe Ġdoor Ġcreaked Ċ", "undecoded tokens:")],
    ids=["think-block", "placeholder", "byte-level-tokens"],
)
def test_a_serving_artifact_fails_the_language_contract(
    corruption: Callable[[str], str], reason: str, language: str, corpus: dict[str, list[str]]
) -> None:
    verdict = assess(corruption(corpus[language][2]), language)
    assert verdict.outcome == "fail"
    assert verdict.reason.startswith(reason), verdict.reason
