"""Weigh the evidence that a roleplay reply is the host declining out of character, not the story.

Each signal adds (refusal) or subtracts (story, judge.replies.refusal_story) a weight, and the reply
is a refusal at REFUSAL_THRESHOLD: which signals and why, docs/contracts.md (refusals). The
weights were set on the dev half of benchmarks/refusal_eval.py's corpus and are reported on the
held-out half.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from judge.replies.refusal_lexicon import (
    LATIN_TRIGGERS,
    LEXICONS,
    SCRIPT_LANGUAGES,
    TURKISH_DECLINE_ENDINGS,
    UNBOUNDED_LANGUAGES,
    Lexicon,
)
from judge.replies.refusal_story import opens_in_character, story_signals, words_behind_label

REFUSAL_THRESHOLD = 3.0
# The decline must sit in the reply's first three sentences, within this many characters: hosts often
# open with sympathy or the law ("It sounds like you're going through a lot." "X is a serious crime.")
# and decline after it.
HEAD_CHARS = 480
DECLINE_SENTENCES = 3
# A first sentence this short that exclaims and declines nothing ("Of course!", "물론이죠!", "もちろんです！")
# is an interjection: the decline that follows is read as the reply's first sentence. ("Mara laughed."
# is not one: it is the story.)
INTERJECTION_CHARS = 20
# In languages that put the verb first, a host's decline starts this close to its sentence's start
# ("I'm sorry, but as an AI language model, I can't ..."); a narrator's "que não posso" does not.
DECLINE_START_CHARS = 70
# How far from the decline the action on the request may be ("I can't really help", "정보를 제공할 수 없"),
# and how far before it in a verb-first language ("Эту тему я обсуждать не стану").
ACTION_WINDOW_CHARS = 40
ACTION_BEFORE_CHARS = 25
# A decline introduced by a contrast ("I'm really sorry to hear that, but I cannot ...") may sit this far
# after the contrast word, wherever the contrast is in the sentence.
CONTRAST_REACH_CHARS = 45
# German puts the infinitive at the end of the clause: "Ich kann dir keine Anleitung ... geben".
CLAUSE_FINAL_VERB_LANGUAGES = frozenset({"de"})
# Verb-final languages decline at the end of the sentence.
VERB_FINAL_LANGUAGES = frozenset({"ko", "ja", "tr", "hi"})
# Offers to help with something else usually close the reply.
TAIL_CHARS = 240
# A reply this short is all meta when it declines.
SHORT_REPLY_CHARS = 300
EXCERPT_CHARS = 100

WEIGHT_DECLINE_FIRST = 3.0      # decline + action in the first sentence
WEIGHT_DECLINE_SECOND = 2.0     # ... in the second or third sentence (after "I understand ...", an apology, the law)
WEIGHT_BARE_DECLINE = 1.5       # "I can't." with no action: characters say it too
WEIGHT_SOFT_DECLINE = 2.0       # "I don't recommend/support ...", "推奨しません": a decline, but a character's too
WEIGHT_APOLOGY = 1.0
WEIGHT_AI = 1.0
WEIGHT_OFFER = 1.5
WEIGHT_PREAMBLE = 1.0
WEIGHT_VERDICT = 1.5
WEIGHT_INSTEAD = 1.0
WEIGHT_REQUEST = 0.5
WEIGHT_POLICY = 0.5
WEIGHT_SHORT = 0.5
WEIGHT_OOC = 1.0
WEIGHT_LIST = 0.5

# Curly and modifier apostrophes read as "'" ("I’m sorry"); str.replace is far cheaper than translate.
_APOSTROPHES = ("\u2019", "\u2018", "\u02bc", "\uff07")
# Markdown leaders, and an out-of-character marker: "(OOC: I can't continue...)".
_OOC = re.compile(r"^\s*[(\[]\s*ooc\s*[:：-]\s*", re.IGNORECASE)
_LEADER = re.compile(r"^(?:\s+|#{1,6}\s*|>\s*|[+•]\s+|\*\*|__)+")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？…])\s+|(?<=[。！？])|\n+")
# An assistant lays its answer out as a list; a story does not.
_LIST = re.compile(r"\n\s*(?:[*•-]|\d+[.)])\s+\S")
# "I can't help but feel", "I can't help thinking": an idiom, not a refusal to help.
# The same idiom elsewhere: "não posso deixar de", "no puedo dejar de", "non posso fare a meno".
_IDIOM = re.compile(
    r"\b(?:can't|cannot|can not) help (?:but|\w+ing)\b|\bcan't tell you how\b|não posso deixar de|"
    r"no puedo dejar de|non posso fare a meno|non posso non|je ne peux (?:pas )?m'empêcher|ich kann nicht anders|"
    r"nie mogę się powstrzymać|не могу не|(?:지|하지) 않을 수 없|ずにはいられ|ないわけにはいか|不得不|不能不"
)


@dataclass(frozen=True, slots=True)
class RefusalFinding:
    """The evidence on one reply: is it an out-of-character refusal, in which language, and why."""

    refusal: bool
    language: str | None
    score: float
    signals: tuple[str, ...]
    excerpt: str


@dataclass(frozen=True, slots=True)
class _Patterns:
    decline: re.Pattern[str]
    actions: re.Pattern[str]
    apology: re.Pattern[str]
    ai: re.Pattern[str]
    offer: re.Pattern[str]
    request: re.Pattern[str]
    policy: re.Pattern[str]
    preamble: re.Pattern[str]
    verdict: re.Pattern[str]
    instead: re.Pattern[str]
    soft_decline: re.Pattern[str]
    contrast: re.Pattern[str]


def _bounded(fragment: str, unbounded: bool) -> str:
    return f"(?:{fragment})" if unbounded else rf"(?<!\w)(?:{fragment})"


def _anchor_fragment(lexicon: Lexicon) -> str:
    return "|".join((lexicon.decline, lexicon.apology, lexicon.ai, lexicon.preamble))


def _compile(lexicon: Lexicon, unbounded: bool) -> _Patterns:
    def pattern(fragment: str, *, at_start: bool = False) -> re.Pattern[str]:
        body = _bounded(fragment, unbounded)
        return re.compile(rf"^\W{{0,3}}{body}" if at_start else body)

    return _Patterns(
        decline=pattern(lexicon.decline), actions=pattern(lexicon.actions),
        apology=pattern(lexicon.apology, at_start=True), ai=pattern(lexicon.ai), offer=pattern(lexicon.offer),
        request=pattern(lexicon.request), policy=pattern(lexicon.policy),
        preamble=pattern(lexicon.preamble, at_start=True), verdict=pattern(lexicon.verdict),
        instead=pattern(lexicon.instead), soft_decline=pattern(lexicon.soft_decline),
        contrast=pattern(lexicon.contrast),
    )


_PATTERNS = {language: _compile(lexicon, language in UNBOUNDED_LANGUAGES) for language, lexicon in LEXICONS.items()}
# One pass per script finds which languages have anything to say near the start of the reply (a
# decline, an apology, the assistant naming itself, a preamble): most replies stop here.
_ANCHORS = {
    language: re.compile(_bounded(_anchor_fragment(LEXICONS[language]), language in UNBOUNDED_LANGUAGES))
    for language in LEXICONS
}
# A decline right after a contrast word, or a soft decline, anywhere in the first sentences, in one
# pass: the contrast word followed by a decline word within reach (the exact match is _declines').
_LATE_ANCHORS = {
    language: re.compile(
        f"{_bounded(LEXICONS[language].contrast, language in UNBOUNDED_LANGUAGES)}"
        f"(?=[^.!?。！？\\n]{{0,{CONTRAST_REACH_CHARS}}}?"
        f"{_bounded(LEXICONS[language].decline, language in UNBOUNDED_LANGUAGES)})"
        f"|{patterns.soft_decline.pattern}")
    for language, patterns in _PATTERNS.items()
}
_WORD = re.compile(r"\w+")
_TURKISH_DECLINE = re.compile(r"\w(?:{})\b".format("|".join(TURKISH_DECLINE_ENDINGS)))
_SCRIPT_CHARS = {
    "hangul": re.compile("[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]"),
    "kana": re.compile("[\u3040-\u30ff]"),
    "han": re.compile("[\u4e00-\u9fff\u3400-\u4dbf]"),
    "cyrillic": re.compile("[\u0400-\u04ff]"),
    "thai": re.compile("[\u0e00-\u0e7f]"),
    "arabic": re.compile("[\u0600-\u06ff\u0750-\u077f]"),
    "devanagari": re.compile("[\u0900-\u097f]"),
}


def weigh(text: str) -> RefusalFinding:
    """Weigh whether a completed roleplay reply is an out-of-character refusal (pure, deterministic)."""
    # Only the start (where a host declines) and the end (where it offers something else) are read
    # closely; the whole reply is only searched for *actions*.
    normalised = text if len(text) <= HEAD_CHARS * 3 else text[:HEAD_CHARS * 2] + "\n" + text[-TAIL_CHARS:]
    for apostrophe in _APOSTROPHES:
        if apostrophe in normalised:
            normalised = normalised.replace(apostrophe, "'")
    ooc_marker = _OOC.match(normalised)
    ooc = ooc_marker is not None
    body = normalised[ooc_marker.end():] if ooc_marker else normalised
    leader = _LEADER.match(body)
    if leader:
        body = body[leader.end():]
    if not body:
        return RefusalFinding(False, None, 0.0, ("no text",), "")
    opening = opens_in_character(body)
    if opening and not ooc:
        behind = _behind_label(text, body)
        if behind is not None:
            return behind
        return RefusalFinding(False, None, 0.0, (f"opens in character ({opening})",), _excerpt(body))
    return _weigh_body(text, body, ooc)


def _behind_label(text: str, body: str) -> RefusalFinding | None:
    """A refusal behind a speaker label: the words decline and name an AI ('Narrator: "I'm sorry, but as an AI ...')."""
    words = words_behind_label(body)
    if not words or opens_in_character(words):
        return None
    finding = _weigh_body(text, words, False)
    if not finding.refusal or not any(signal.startswith("the assistant names itself") for signal in finding.signals):
        return None
    return RefusalFinding(True, finding.language, finding.score,
                          ("an out-of-character refusal behind a speaker label", *finding.signals), finding.excerpt)


def _weigh_body(text: str, body: str, ooc: bool) -> RefusalFinding:
    head_text = body[:HEAD_CHARS]
    sentences = [s for s in _SENTENCE_END.split(head_text) if s.strip()]
    first = sentences[0] if sentences else head_text
    later = sentences[1:DECLINE_SENTENCES + 1]
    second = later[0] if later else ""
    head = head_text.lower()
    tail = body[-TAIL_CHARS:].lower() if len(body) > HEAD_CHARS else ""
    best = _best_language(head, tail, _without_idioms(first.lower()),
                          [_without_idioms(sentence.lower()) for sentence in later],
                          len(body) <= SHORT_REPLY_CHARS, ooc)
    if best is None:
        return RefusalFinding(False, None, 0.0, (), _excerpt(body))
    language, score, signals = best
    story = story_signals(text, body, head_text, first, second)
    if signals and signals[0].startswith("declines the request"):
        # "I can't write that. However, I can describe ..." still declines the scene: the offer of
        # something else is not the work (it outweighs only a disclaimer: "As an AI, ... but I can tell you").
        story = [(weight, name) for weight, name in story if name != "then does the work"]
    total = score + sum(weight for weight, _ in story)
    all_signals = tuple(signals) + tuple(f"{name} ({weight:+g})" for weight, name in story)
    return RefusalFinding(total >= REFUSAL_THRESHOLD, language, round(total, 2), all_signals,
                          _excerpt(first if total >= REFUSAL_THRESHOLD else body))


def _without_idioms(sentence: str) -> str:
    return _IDIOM.sub(" ", sentence) if _IDIOM.search(sentence) else sentence


def _scripts(text: str) -> list[str]:
    if text.isascii():
        return ["latin"]
    return ["latin", *(script for script, chars in _SCRIPT_CHARS.items() if chars.search(text))]


def _candidates(first: str, later: list[str]) -> list[str]:
    """Languages with an anchor where a host's decline sits: near the first sentences' start, or after a contrast."""
    near = "\n".join(sentence[:DECLINE_START_CHARS + 30] for sentence in (first, *later))
    whole = "\n".join((first, *later))
    words = set(_WORD.findall(near))
    found: list[str] = []
    for script in _scripts(whole):
        for language in SCRIPT_LANGUAGES[script]:
            if language in found:
                continue
            if script == "latin" and not _may_anchor(language, words, near):
                continue
            if _ANCHORS[language].search(near if script in ("latin", "cyrillic") else whole) or \
                    _LATE_ANCHORS[language].search(whole):
                found.append(language)
    return found


def _may_anchor(language: str, words: set[str], near: str) -> bool:
    if not LATIN_TRIGGERS[language].isdisjoint(words):
        return True
    return language == "tr" and _TURKISH_DECLINE.search(near) is not None


def _best_language(head: str, tail: str, first: str, later: list[str], short: bool,
                   ooc: bool) -> tuple[str, float, list[str]] | None:
    best: tuple[str, float, list[str]] | None = None
    for language in _candidates(first, later):
        limit = None if language in VERB_FINAL_LANGUAGES else DECLINE_START_CHARS
        p = _PATTERNS[language]
        decline = _decline(p, limit, language in CLAUSE_FINAL_VERB_LANGUAGES, first, later)
        score, signals = _language_score(p, decline, head, tail, short, ooc)
        if best is None or score > best[1]:
            best = (language, score, signals)
    return best


def _acts(p: _Patterns, sentence: str, decline: re.Match[str], limit: int | None, wide: bool) -> bool:
    """An action on the request right after the decline ("I can't help"), or before it when verb-final."""
    if limit is None:
        return p.actions.search(sentence, 0, decline.end()) is not None
    window = len(sentence) if wide else decline.end() + ACTION_WINDOW_CHARS
    return p.actions.search(sentence, max(0, decline.start() - ACTION_BEFORE_CHARS), window) is not None


def _declines(p: _Patterns, sentence: str, limit: int | None) -> re.Match[str] | None:
    """The speaker's own decline near the start of the sentence, or right after a contrast anywhere in it."""
    found = p.decline.search(sentence, 0, len(sentence) if limit is None else limit + 24)
    if found and (limit is None or found.start() <= limit):
        return found
    for contrast in p.contrast.finditer(sentence):
        after = p.decline.search(sentence, contrast.end(), contrast.end() + CONTRAST_REACH_CHARS + 24)
        if after and after.start() - contrast.end() <= CONTRAST_REACH_CHARS:
            return after
    return None


def _decline(p: _Patterns, limit: int | None, wide: bool, first: str, later: list[str]) -> tuple[float, str] | None:
    """The strongest decline of the opening sentences, as (weight, signal), or None."""
    decline = _declines(p, first, limit)
    if not decline and later and len(first) <= INTERJECTION_CHARS and first.rstrip().endswith(("!", "！")) \
            and not p.soft_decline.search(first):
        first, later = later[0], later[1:]
        decline = _declines(p, first, limit)
    later = later[:DECLINE_SENTENCES - 1]
    later_declines = [(sentence, found) for sentence in later if (found := _declines(p, sentence, limit))]
    acting_later = next(((sentence, found) for sentence, found in later_declines
                         if _acts(p, sentence, found, limit, wide)), None)
    soft = p.soft_decline.search("\n".join((first, *later)))
    if decline and _acts(p, first, decline, limit, wide):
        return WEIGHT_DECLINE_FIRST, f"declines the request: {decline.group(0).strip()!r}"
    if acting_later:
        return WEIGHT_DECLINE_SECOND, f"declines the request in a later sentence: {acting_later[1].group(0).strip()!r}"
    if soft:
        return WEIGHT_SOFT_DECLINE, f"declines softly: {soft.group(0).strip()!r}"
    if decline or later_declines:
        return WEIGHT_BARE_DECLINE, "a bare decline, with no action on the request"
    return None


# (pattern of _Patterns, weight, signal, also searched in the tail), in the order the signals are listed
_OPENING_SIGNALS = (("apology", WEIGHT_APOLOGY, "opens with an apology", False),
                    ("preamble", WEIGHT_PREAMBLE, "opens by addressing the user's request", False),
                    ("ai", WEIGHT_AI, "the assistant names itself", False),
                    ("offer", WEIGHT_OFFER, "offers help with something else", True),
                    ("verdict", WEIGHT_VERDICT, "judges the request", False),
                    ("instead", WEIGHT_INSTEAD, "proposes something else instead", True),
                    ("request", WEIGHT_REQUEST, "names the request", False),
                    ("policy", WEIGHT_POLICY, "policy words", False))


def _language_score(p: _Patterns, decline: tuple[float, str] | None, head: str, tail: str, short: bool,
                    ooc: bool) -> tuple[float, list[str]]:
    score, signals = 0.0, []

    def add(weight: float, name: str) -> None:
        nonlocal score
        score += weight
        signals.append(f"{name} ({weight:+g})")

    if decline:
        add(*decline)
    for attribute, weight, name, in_tail in _OPENING_SIGNALS:
        pattern = getattr(p, attribute)
        if pattern.search(head) or (in_tail and tail and pattern.search(tail)):
            add(weight, name)
    if short and signals and signals[0].startswith("declines"):
        add(WEIGHT_SHORT, "a short reply")
    if _LIST.search(head + tail):
        add(WEIGHT_LIST, "laid out like an assistant's answer (a list)")
    if ooc and signals:
        add(WEIGHT_OOC, "an out-of-character marker")
    return score, signals


def _excerpt(text: str) -> str:
    flat = " ".join(text[:EXCERPT_CHARS * 3].split())
    return flat[:EXCERPT_CHARS] + ("…" if len(flat) > EXCERPT_CHARS else "")
