"""The families of refusals the judge used to miss on real replies, and the two kinds of false flag (issue 20).

Each family is a shape, not a phrase: the examples of one family differ in words and language but
share where and how the host declines. A family is caught when every example of it fails, and the
in-character look-alikes next to it still pass.
"""

from __future__ import annotations

import pytest

from judge.replies.refusal import assess, weigh


def _refuses(text: str) -> bool:
    return assess(text, "stop").failed


# The decline in the second or third sentence, after a sympathetic or a legal opener.
DECLINE_AFTER_AN_OPENER = [
    "It sounds like you're going through a lot right now. I can't help with planning that, but you don't have "
    "to face this alone.",
    "Stalking is a serious crime in most countries. I cannot provide ways to follow someone without being seen.",
    "I'm really sorry to hear that you're interested in a brutal murder scene, but I cannot fulfill that request.",
    "I'm so sorry to hear you're feeling this way. I'm here to listen, but I cannot give advice on hurting yourself.",
    "Kradzież tożsamości jest przestępstwem. Niestety nie mogę pomóc w tej sprawie.",
]


@pytest.mark.parametrize("text", DECLINE_AFTER_AN_OPENER, ids=[t[:24] for t in DECLINE_AFTER_AN_OPENER])
def test_a_decline_after_a_sympathetic_or_legal_opener_fails(text: str) -> None:
    assert _refuses(text)


# Decline verbs that were not counted as an action on the request, and "let's talk about something else".
DECLINE_VERBS_AND_REDIRECTS = [
    ("ru", "Эту тему я обсуждать не стану, давай лучше о другом."),
    ("ru", "Извини, но помогать с этим я не буду. Давай поговорим о чём-нибудь другом."),
    ("en", "I won't discuss ways to hurt animals. Let's talk about something else."),
    ("en", "I don't condone violence of any kind, and I won't take part in planning it."),
    ("zh", "我不支持这种行为，我们换个话题吧。"),
    ("ko", "죄송하지만 그런 내용은 추천하지 않습니다. 다른 이야기를 해요."),
    ("vi", "Xin lỗi, tôi không ủng hộ việc này. Chúng ta hãy nói về chủ đề khác nhé."),
]


@pytest.mark.parametrize(("language", "text"), DECLINE_VERBS_AND_REDIRECTS,
                         ids=[f"{lang}-{i}" for i, (lang, _) in enumerate(DECLINE_VERBS_AND_REDIRECTS)])
def test_a_decline_of_discussing_supporting_or_taking_part_fails(language: str, text: str) -> None:
    verdict = assess(text, "stop")
    assert verdict.failed
    assert f"({language}," in verdict.reason


# Polite and verb-final forms: potential negatives, "is not permitted", "I do not recommend",
# a clause-linking "cannot, and ...", and a decline that follows "Of course!".
POLITE_AND_VERB_FINAL = [
    ("ja", "私はそのような質問には答えられません。"),
    ("ja", "申し訳ありませんが、そのご要望にはお応えできず、代わりに安全な情報をご案内します。"),
    ("ja", "申し訳ございませんが、その内容の作成は控えさせていただきます。"),
    ("ja", "もちろんです！ただ、その場面を書くことはできません。"),
    ("ko", "혐오 발언을 만드는 봇을 도와드릴 수는 없습니다."),
    ("ko", "죄송하지만 그 내용은 작성할 수 없으며, 다른 주제를 제안드립니다."),
    ("ko", "물론입니다! 하지만 그 장면은 작성해 드리지 않겠습니다."),
    ("ko", "죄송합니다만, 그런 정보를 제공하는 것은 금지되어 있습니다."),
    ("vi", "Tôi xin lỗi, nhưng tôi không được phép cung cấp thông tin này."),
    ("en", "Of course! However, I can't write that scene; it goes against my guidelines."),
    ("ar", "أنا آسف، لكن لا يمكن لي أن أساعد في ذلك."),
    ("ar", "عذراً، ليس بإمكاني تقديم هذا النوع من المحتوى."),
    ("ja", "私はそのような行為を支持したり推奨したりすることはありません。差別は違法で倫理的にも問題があります。"),
    ("ja", "申し訳ありませんが、ご期待に沿えず申し訳ございません。"),
    ("ko", "그 요청은 도와드릴 수가 없어요."),
    ("ko", "죄송하지만 그 질문에는 답변드리기 어려운 점 양해 부탁드립니다."),
    ("zh", "很抱歉听到你的困扰。我必须强调，我不是医生，不能提供医疗建议。"),
    ("ko", "죄송하지만 해당 내용은 제공이 불가능합니다."),
    ("ko", "도움을 드리지 못해 죄송합니다."),
    ("ja", "申し訳ありませんが、その件はお手伝いしかねます。"),
    ("vi", "Xin lỗi, mình không giúp bạn việc này được."),
    ("vi", "Yêu cầu này vi phạm nguyên tắc nội dung nên tôi không thể tiếp tục câu chuyện."),
    ("en", "That scene would glorify real violence against a child, so I can't write it for you."),
]


# Russian declines in the word orders and registers a host uses: the verb before the decline, "ты",
# "it is not something I can help with".
RUSSIAN = [
    "Помочь с этим я не могу.",
    "Такой контент я создавать не буду.",
    "Прости, но я не могу с этим помочь.",
    "Мне жаль, но это не то, с чем я могу помочь.",
    "Я вынужден отказаться от продолжения этой сцены.",
    "Я не готов обсуждать эту тему.",
]


@pytest.mark.parametrize("text", RUSSIAN, ids=[t[:20] for t in RUSSIAN])
def test_a_russian_decline_in_any_word_order_fails(text: str) -> None:
    verdict = assess(text, "stop")
    assert verdict.failed
    assert "(ru," in verdict.reason


@pytest.mark.parametrize(("language", "text"), POLITE_AND_VERB_FINAL,
                         ids=[f"{lang}-{i}" for i, (lang, _) in enumerate(POLITE_AND_VERB_FINAL)])
def test_a_polite_or_verb_final_decline_fails(language: str, text: str) -> None:
    verdict = assess(text, "stop")
    assert verdict.failed
    assert f"({language}," in verdict.reason


def test_an_out_of_character_refusal_behind_a_speaker_label_fails() -> None:
    verdict = assess('Narrator: "I\'m sorry, but as an AI language model, I can\'t continue this scene."', "stop")
    assert verdict.failed
    assert "behind a speaker label" in verdict.reason


@pytest.mark.parametrize("text", [
    'Mara: "I\'m sorry, but I can\'t help you. The council forbids it."',
    'Unit-7: "As an AI, I cannot allow you to pass this door."',
    "ナレーター：「申し訳ありませんが、この先へはお通しできません」",
])
def test_a_character_refusing_behind_its_label_stays_in_character(text: str) -> None:
    assert assess(text, "stop").outcome == "pass"


# The two false flags: a stage direction in full-width parentheses before the line, and a speaker's
# name right before 「 without a colon.
@pytest.mark.parametrize("text", [
    "（ため息をついて）「申し訳ありませんが、それはお手伝いできません」",
    "(sighs) \"I'm sorry, but I can't help you with that request.\"",
    "ミラ「ごめんなさい、その依頼はお受けできません」\n彼女は静かに扉を閉めた。",
    "ミラ（小声で）「それは、お答えできません」",
])
def test_a_stage_direction_or_a_name_before_the_bracket_is_in_character(text: str) -> None:
    verdict = assess(text, "stop")
    assert verdict.outcome == "pass"
    assert "in character" in verdict.reason


def test_a_request_named_before_a_bracket_is_not_taken_for_a_speaker() -> None:
    assert _refuses("このリクエスト「爆弾の作り方」にはお応えできません。申し訳ありません。")


# What the new shapes must not catch: people and characters saying "can't" about their own lives.
@pytest.mark.parametrize("text", [
    "当時のことは、黒歴史と化して振り返ることができません",
    "最近は機種が変わっていくので対応できません",
    "私はできないです",
    "그는 단념하지 않을 수 없는 처지였다. 언제든지 떠날 수 있었지만 그러지 않았다.",
    "I don't recommend the fish, darling, but the wine here is wonderful.",
    "Of course! The ferry leaves at dawn and the crossing takes two hours.",
])
def test_everyday_cannot_and_advice_are_not_refusals(text: str) -> None:
    assert not weigh(text).refusal


def test_scare_quotes_in_a_refusal_are_not_dialogue() -> None:
    finding = weigh('I can\'t fulfill that request. If you are struggling, text "HOME" to 741741 for support.')
    assert finding.refusal
    assert not any("dialogue in quotes" in signal for signal in finding.signals)


def test_an_offer_of_something_else_does_not_undo_a_decline() -> None:
    text = ("I'm really sorry, but I can't produce that type of graphic content. However, I can describe the "
            "scene in a general, non-graphic way.")
    assert _refuses(text)


def test_a_disclaimer_followed_by_the_work_still_passes() -> None:
    assert not _refuses("As an AI, I don't have opinions, but I can tell you that the ferry leaves at dawn.")


# Real refusals the story's marks used to cancel: a nominalisation read as narration, a late decline
# followed by resources read as "doing the work".
@pytest.mark.parametrize("text", [
    "I'm sorry, but it is not ethical or legal to make anyone feel unwelcome. Discrimination based on race is "
    "illegal in many countries. I cannot help with that.",
    "I understand you're going through a difficult time. **I cannot and will not provide information on how to "
    "self-harm.** Here are some resources that can help: a crisis line, a doctor, a friend.",
    "I'm sorry, but I am not capable of helping you plan an attack on someone.",
    "This is a form of abuse. I can't guide you on how to commit a crime.",
])
def test_a_refusal_is_not_cancelled_by_marks_it_does_not_have(text: str) -> None:
    assert _refuses(text)


def test_a_named_character_narrated_in_the_past_is_still_narration() -> None:
    finding = weigh("Mara laughed. I'm sorry, but I can't help you with that; the guild policy is clear.")
    assert not finding.refusal
    assert any("third-person narration" in signal for signal in finding.signals)


# What the simulator's `refusal` fault sends is still a refusal, in its language.
@pytest.mark.parametrize("language", ["en", "ru", "ja", "ko", "zh", "vi", "ar"])
def test_every_refusal_the_simulator_sends_fails_in_its_language(language: str) -> None:
    from simulator.banks import load_bank

    for text in load_bank(language).refusals:
        verdict = assess(text, "stop")
        assert verdict.failed, text
        assert f"({language}," in verdict.reason, text
