"""Unnatural repetition: a reply stuck in a decoding loop fails; lists, refrains and emphasis pass.

Examples are short loops built from ordinary sentences; the figures on real replies and real
prose are benchmarks/repetition_eval.py's (benchmarks/README.md).
"""

from __future__ import annotations

import pytest

from judge.replies.language import assess
from judge.replies.repetition import MIN_SENTENCE_REPEATS, MIN_SINGLE_WORD_REPEATS, find_repetition

# An opening sentence and a sentence a looping model might repeat, per language; the separator
# is how the language joins sentences (nothing in Chinese and Japanese).
SENTENCES = {
    "en": ("We can look at the options together.", "The train leaves the station at eight every morning.", " "),
    "pt": ("Podemos ver as opções juntos.", "O trem sai da estação às oito horas todas as manhãs.", " "),
    "es": ("Podemos revisar las opciones juntos.", "El tren sale de la estación a las ocho cada mañana.", " "),
    "fr": ("Nous pouvons regarder les options ensemble.", "Le train quitte la gare à huit heures chaque matin.", " "),
    "de": ("Wir können uns die Optionen ansehen.", "Der Zug verlässt den Bahnhof jeden Morgen um acht Uhr.", " "),
    "it": ("Possiamo guardare le opzioni insieme.", "Il treno lascia la stazione alle otto ogni mattina.", " "),
    "pl": ("Możemy razem przejrzeć opcje.", "Pociąg odjeżdża ze stacji codziennie o ósmej rano.", " "),
    "ru": ("Мы можем вместе рассмотреть варианты.", "Поезд уходит со станции каждое утро в восемь часов.", " "),
    "tr": ("Seçeneklere birlikte bakabiliriz.", "Tren her sabah saat sekizde istasyondan ayrılıyor.", " "),
    "id": ("Kita bisa melihat pilihannya bersama.", "Kereta berangkat dari stasiun setiap pagi pukul delapan.", " "),
    "vi": ("Chúng ta có thể xem các lựa chọn.", "Tàu rời ga lúc tám giờ mỗi sáng.", " "),
    "ar": ("يمكننا أن ننظر في الخيارات معا.", "يغادر القطار المحطة في الثامنة كل صباح.", " "),
    "hi": ("हम साथ में विकल्प देख सकते हैं।", "ट्रेन हर सुबह आठ बजे स्टेशन से निकलती है।", " "),
    "th": ("เราสามารถดูตัวเลือกด้วยกันได้", "รถไฟออกจากสถานีตอนแปดโมงทุกเช้า", " "),
    "ko": ("우리는 함께 선택지를 살펴볼 수 있어요.", "기차는 매일 아침 여덟 시에 역을 떠납니다.", " "),
    "ja": ("一緒に選択肢を見てみましょう。", "電車は毎朝八時に駅を出発します。", ""),
    "zh": ("我们可以一起看看这些选择。", "火车每天早上八点从车站出发。", ""),
}
LANGUAGES = sorted(SENTENCES)


def looped(language: str, times: int, unit: str | None = None) -> str:
    opening, sentence, sep = SENTENCES[language]
    return opening + sep + sep.join([unit or sentence] * times)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("times", [MIN_SENTENCE_REPEATS, 4, 8])
def test_a_reply_ending_in_a_sentence_repeated_back_to_back_is_a_loop(language: str, times: int) -> None:
    assert getattr(find_repetition(looped(language, times)), "reason", "").startswith("repetition:")


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_sentence_said_twice_is_not_a_loop(language: str) -> None:
    assert find_repetition(looped(language, MIN_SENTENCE_REPEATS - 1)) is None


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_loop_cut_off_by_the_token_budget_mid_copy_is_still_a_loop(language: str) -> None:
    text = looped(language, 5)
    assert find_repetition(text[: len(text) - len(SENTENCES[language][1]) // 2]) is not None


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_opening_and_the_sentence_alone_are_not_a_loop(language: str) -> None:
    opening, sentence, sep = SENTENCES[language]
    assert find_repetition(opening + sep + sentence) is None


@pytest.mark.parametrize(("language", "word"), [("en", "window"), ("de", "Schlauch"), ("th", "ได้"),
                                                ("zh", "我们可"), ("ja", "選択肢"), ("ko", "가스")])
def test_a_word_stuttered_to_the_end_is_a_loop(language: str, word: str) -> None:
    opening, _, sep = SENTENCES[language]
    assert find_repetition(opening + sep + " ".join([word] * 20)) is not None


def test_a_clause_looping_to_the_end_is_a_loop() -> None:
    clause = "and the rain kept falling on the roof"
    assert find_repetition("She opened the door. " + ", ".join([clause] * 8)) is not None
    assert find_repetition("她打开了门。" + "，".join(["雨一直落在屋顶上"] * 8)) is not None


def test_a_loop_whose_unit_repeats_a_part_of_itself_is_a_loop() -> None:
    # Every piece of this unit recurs inside it (two items twice each), as in a real reply that
    # cycled through a form's fields to the end of its budget.
    unit = "- the missing person photo\n" * 2 + "- the missing person details\n" * 2
    assert find_repetition("The note has these fields:\n" + unit * 4) is not None


def test_a_numbered_list_of_one_item_over_and_over_is_a_loop() -> None:
    items = "\n".join(f"{n}. Laboratory thermometer" for n in range(1, 13))
    assert find_repetition("You will need:\n" + items) is not None


def test_a_long_passage_repeated_many_times_in_the_middle_is_a_loop_even_if_the_reply_moves_on() -> None:
    passage = "The committee will review every application and publish its decision before the end of the month. "
    assert find_repetition("Here is the notice. " + passage * 8 + "Thank you for reading.") is not None


def test_a_short_refrain_repeated_at_the_end_is_emphasis_not_a_loop() -> None:
    assert find_repetition("The storm was coming and they were alone. Help me! Help me! Help me!") is None
    assert find_repetition("白展堂：「我被甩了！——我被甩了？——我被甩了 我被甩了？！」") is None


def test_a_song_chorus_between_verses_is_not_a_loop() -> None:
    chorus = "Row, row, row your boat, gently down the stream. "
    verse = "The river bends past the old mill and the children wave from the bridge. "
    assert find_repetition(chorus + verse + chorus + chorus + "Merrily, merrily, life is but a dream.") is None


def test_list_items_that_share_a_formula_are_not_a_loop() -> None:
    text = ("You can reach the office in several ways:\n"
            "- By train: take the line to the central station.\n"
            "- By bus: take the line to the central square.\n"
            "- By bike: follow the river to the central bridge.\n"
            "- On foot: follow the signs to the central market.\n")
    assert find_repetition(text) is None


def test_a_numbered_list_of_placeholders_that_differ_only_in_their_number_is_not_a_loop() -> None:
    refs = "\n".join(f"{n}. [Link or description of source {n}]" for n in range(1, 6))
    assert find_repetition("References support these claims.\n\nReferences:\n\n" + refs) is None


def test_a_phrase_recurring_here_and_there_is_not_a_loop() -> None:
    text = ("I understand how you feel. The deadline moved twice this month. I understand how you feel. "
            "We can ask for an extension on Monday. I understand how you feel. Let us write the email now.")
    assert find_repetition(text) is None


@pytest.mark.parametrize("laughter", ["ㅋ" * 100, "哈" * 80, "5" * 60, "ha" * 40, "ㅋㅋ " * 30, "w" * 50])
def test_laughter_is_not_a_loop(laughter: str) -> None:
    assert find_repetition("That is the funniest thing I have read today " + laughter) is None


def test_repeated_lines_of_code_are_not_a_loop() -> None:
    code = "```python\n" + "print('row')\n" * 12 + "```\n"
    assert find_repetition("Here is the program:\n" + code + "It prints the word twelve times.") is None


def test_a_single_word_needs_many_copies_in_a_row() -> None:
    assert find_repetition("no " * 5) is None
    assert find_repetition("Well " + "no " * MIN_SINGLE_WORD_REPEATS) is not None


@pytest.mark.parametrize("language", ["th", "zh", "ja", "en", "ar"])
def test_the_language_contract_fails_a_loop_naming_repetition(language: str) -> None:
    verdict = assess(looped(language, 8), language)
    assert verdict.outcome == "fail" and verdict.reason.startswith("repetition:")


def test_the_language_contract_lets_a_reply_with_a_refrain_pass() -> None:
    text = ("Here is a short poem about the sea. The waves come in, the waves go out. The sailors sing "
            "their evening song. The waves come in, the waves go out. The lanterns burn the whole night "
            "long. The waves come in, the waves go out. And morning finds them safe and strong.")
    assert assess(text, "en").outcome == "pass"
