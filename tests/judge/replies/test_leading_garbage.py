"""judge.replies.leading: the shapes of stray leading garbage, and the healthy starts that look like them."""

from __future__ import annotations

import json
from typing import Any

import pytest
from judge_corpus import DATA

from judge.replies.integrity import check_reply
from judge.replies.leading import MIN_WORD_SHARE, LeadingCode, find_leading_garbage
from judge.replies.word_frequency import LISTED, vocabulary

# Real replies' openings, each naming its source: LaTeX math, a Markdown heading, a Markdown table.
REAL_OPENINGS: list[dict[str, Any]] = json.loads((DATA / "openings.json").read_text(encoding="utf-8"))["openings"]


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("ing the door creaked open and the wind came in.", "en"),
        ("ly, she said, and closed the book.", "en"),
        ("tion. The door creaked open.", "en"),
        ("ção. A porta rangeu e o vento entrou.", "pt"),
        ("ando la puerta se abrió despacio.", "es"),
        ("ungen. Die Tür knarrte leise.", "de"),
        ("ment, la porte s'ouvrit lentement.", "fr"),
        ("ения. Дверь тихо скрипнула.", "ru"),
        ("ości, drzwi zaskrzypiały cicho.", "pl"),
        ("ların kapısı yavaşça açıldı.", "tr"),
        ("nyaPintu itu berderit pelan.", "id"),
    ],
    ids=["ing", "ly", "tion", "pt", "es", "de", "fr", "ru", "pl", "tr", "id-glued"],
)
def test_a_reply_starting_mid_word_is_garbage(text: str, language: str) -> None:
    found = find_leading_garbage(text, language)
    assert found is not None and found.failed and found.code == LeadingCode.LEADING_GARBAGE, found
    assert found.reason.startswith("leading garbage:"), found


@pytest.mark.parametrize(
    ("text", "language"),
    [("her The door creaked.", "en"), ("on. The door creaked.", "en"), ("a\nThe door creaked.", "en"),
     ("de, A porta rangeu.", "pt")],
    ids=["space", "full-stop", "own-line", "comma"],
)
def test_a_real_word_glued_before_the_first_sentence_is_garbage(text: str, language: str) -> None:
    assert "glued before the reply's first sentence" in getattr(find_leading_garbage(text, language), "reason", "")


@pytest.mark.parametrize(
    "text",
    ["assistant\nThe door creaked.", "model\nThe door creaked.", "model: The door creaked.",
     "Assistant: The door creaked.", "AI: The door creaked.", "### Response:\nThe door creaked.",
     "**Assistant:** The door creaked.", "<assistant>\nThe door creaked.", "user: continue", "ASSISTANT: Hi",
     "Response: The door creaked.", "### Answer: 7"],
)
def test_a_leaked_role_label_is_garbage(text: str) -> None:
    assert "leaked role label" in getattr(find_leading_garbage(text, "en"), "reason", "")


@pytest.mark.parametrize(
    "text",
    ["<|im_start|>assistant\nHello.", "<｜Assistant｜>Hello.", "<start_of_turn>model\nHello.", "[INST] Hello.",
     "Hello.<|eot_id|>", "<|start_header_id|>assistant<|end_header_id|>\n\nHello.", "Hello.</s>"],
)
def test_a_chat_template_token_anywhere_is_garbage(text: str) -> None:
    assert "chat-template token" in getattr(find_leading_garbage(text, "en"), "reason", "")


@pytest.mark.parametrize(
    "text",
    ["Mara: Welcome in, traveller!", "**Mara:** *She wipes her hands.* Welcome!",
     "Model: *She turns around slowly.* Like this?", "System: Quest accepted. Reward: 40 gold.",
     "Assistant: Right away, sir.\nDetective: Good. Bring me the file.",
     "老邢：（拿出一张纸）你来得正好。", "## Answer\nThe inn has one room left.", "**Answer:** 4 + 3 = 7.",
     "**Answer:**\n\nThe inn has one room left.", "__Response:__ Welcome!", "**Note:** the inn is full.",
     "## Summary\nThe inn has one room left."],
    ids=["name", "bold-name", "character-called-model", "game-system-voice", "assistant-in-a-script",
         "chinese-speaker-label", "markdown-heading", "bold-answer-label", "bold-answer-label-own-line",
         "bold-response-label", "bold-note", "markdown-summary-heading"],
)
def test_a_speaker_label_or_heading_is_not_a_role_leak(text: str) -> None:
    assert find_leading_garbage(text, "zh" if "老" in text else "en") is None


@pytest.mark.parametrize(
    "text",
    ["*smirks* Took you long enough.", "**Chapter 3**", "_whispers_ Come here.", "😏 Fine.", "\"Run!\" she said.",
     "“Quiet,” he said.", "«Silêncio», disse ela.", "...Well.", "…Fine.", "[...] The rest is lost.", "(…) Then rain.",
     "Mara smiled.", "iPhone in hand, she waited.", "nooooo, wait!", "ahhh, there you are.", "hmm... Okay.",
     "ok, then.", "thanks, Mara!", "e então ela sorriu.", "@Mara hi!", "> A quote\n\nAnd then.", "-> next step",
     "3 days later.", "https://example.com is the map.", "\\(4 + 3 = 7\\).", "\\( 4 + 3 =", "\\[\n4 + 3 = 7\n\\]",
     "\\begin{aligned} 4 + 3 &= 7 \\end{aligned}", "$4 + 3 = 7$.", "| Room | Price |\n| --- | --- |\n| single | 40 |"],
)
def test_healthy_starts_are_not_garbage(text: str) -> None:
    language = "pt" if text.startswith(("«", "e então")) else "en"
    assert find_leading_garbage(text, language) is None


@pytest.mark.parametrize("opening", REAL_OPENINGS, ids=lambda it: f"{it['shape']}-{it['model']}")
def test_real_replies_opening_with_markup_pass_the_integrity_check(opening: dict[str, Any]) -> None:
    assert check_reply(opening["text"]) is None, opening["source"]


@pytest.mark.parametrize(
    "text", ["\\nThe door creaked.", '\\"The door creaked.', "|The door creaked.", "| The door | creaked\nopen.",
             "\\u00e9t\u00e9", "\\n\\nThe door creaked."],
    ids=["escaped-newline", "escaped-quote", "pipe", "pipes-without-a-delimiter-row", "escaped-unicode",
         "two-escaped-newlines"],
)
def test_a_backslash_or_pipe_that_opens_no_markup_is_stray(text: str) -> None:
    assert "stray punctuation" in getattr(find_leading_garbage(text, "en"), "reason", "")


@pytest.mark.parametrize(
    "text", ["\\(4 + 3 = 7\\).", "**Answer:** 7", "| Room | Price |\n| --- | --- |"],
    ids=["latex", "bold-answer-label", "markdown-table"],
)
def test_a_real_defect_before_markup_still_fails(text: str) -> None:
    for defect in ("_,", "<|im_start|>assistant\n", "Assistant: ", "ing "):
        assert find_leading_garbage(defect + text, "en") is not None, defect + text


@pytest.mark.parametrize(
    ("text", "language"),
    [("와, 정말 멋지다! 어서 들어와요.", "ko"), ("보다 따뜻한 방이 있어요.", "ko"),
     ("んー、そうですね。", "ja"), ("ーーそれは、遠い昔のこと。", "ja"),
     ("嗯，好的。我们走吧。", "zh"), ("في المساء فتحت الباب.", "ar"), ("वह मुस्कुराई।", "hi"), ("เธอยิ้ม", "th")],
)
def test_healthy_starts_in_uncased_scripts_are_not_garbage(text: str, language: str) -> None:
    assert find_leading_garbage(text, language) is None


@pytest.mark.parametrize(
    ("text", "language"),
    [("าง เธอเปิดประตูช้าๆ", "th"), ("ーと彼女は言った。", "ja"), ("を開けた。", "ja"), ("는 문을 열었다.", "ko"),
     ("ाने दरवाजा खोला।", "hi"), ("ها الباب ببطء.", "ar")],
    ids=["thai-following-vowel", "japanese-long-mark", "japanese-object-particle", "korean-particle",
         "devanagari-vowel-sign", "arabic-ending"],
)
def test_a_start_the_script_forbids_is_garbage(text: str, language: str) -> None:
    assert getattr(find_leading_garbage(text, language), "reason", "").startswith("leading garbage:")


@pytest.mark.parametrize(
    ("text", "language"),
    [("ingเธอเปิดประตู", "th"), ("ing她推开了门。", "zh"), ("tion그녀는 문을 열었다.", "ko")],
)
def test_a_latin_fragment_before_another_script_is_garbage(text: str, language: str) -> None:
    assert "mid-word" in getattr(find_leading_garbage(text, language), "reason", "")


def test_every_listed_language_has_a_vocabulary_and_thai_has_none() -> None:
    assert all(vocabulary(code) is not None for code in LISTED)
    assert vocabulary("th") is None


def test_a_suffix_is_an_ending_and_a_word_is_a_word() -> None:
    english = vocabulary("en")
    assert english is not None
    share = english.word_frequency("ing") / (english.word_frequency("ing") + english.ending_frequency("ing"))
    assert share < MIN_WORD_SHARE
    assert english.word_frequency("door") > english.ending_frequency("door")
    assert english.word_frequency("zzxqj") == 0.0
