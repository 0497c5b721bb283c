"""Text preparation for the language judge: strip markup, split into sentences, weigh letters.

Each segment gets its dominant script, which among the 17 languages names the language outright
(Hangul only Korean, Cyrillic only Russian...), so only Latin and Han text need a model.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

# One CJK/kana/Hangul/Thai character weighs as much as this many Latin letters (docs/design-notes.md §2.1).
DENSE_SCRIPT_WEIGHT = 3
# A segment's main script must hold this share of its letter weight, else the segment is mixed.
DOMINANT_SCRIPT_SHARE = 0.6

LATIN, HAN, KANA, HANGUL, THAI, CYRILLIC, ARABIC, DEVANAGARI, OTHER = (
    "latin", "han", "kana", "hangul", "thai", "cyrillic", "arabic", "devanagari", "other",
)
DENSE_SCRIPTS = frozenset({HAN, KANA, HANGUL, THAI})

# Scripts that, among the 17 languages, belong to exactly one language.
SCRIPT_LANGUAGE = {
    HANGUL: "ko", KANA: "ja", THAI: "th", CYRILLIC: "ru", ARABIC: "ar", DEVANAGARI: "hi",
}

_RANGES: tuple[tuple[int, int, str], ...] = (
    (0x0000, 0x024F, LATIN), (0x1E00, 0x1EFF, LATIN), (0x0300, 0x036F, LATIN),
    (0x0400, 0x052F, CYRILLIC), (0x0600, 0x06FF, ARABIC), (0x0750, 0x077F, ARABIC),
    (0x08A0, 0x08FF, ARABIC), (0xFB50, 0xFDFF, ARABIC), (0xFE70, 0xFEFF, ARABIC),
    (0x0900, 0x097F, DEVANAGARI), (0x0E00, 0x0E7F, THAI),
    (0x1100, 0x11FF, HANGUL), (0x3130, 0x318F, HANGUL), (0xAC00, 0xD7AF, HANGUL),
    (0x3040, 0x30FF, KANA), (0x31F0, 0x31FF, KANA), (0xFF66, 0xFF9F, KANA),
    (0x3005, 0x3005, HAN), (0x3400, 0x4DBF, HAN), (0x4E00, 0x9FFF, HAN), (0xF900, 0xFAFF, HAN),
)

# Every pattern here runs on upstream text of up to 64 K characters, so none may cost more than
# linear time: a repeat that could start at every character and scan to the end of the text
# (`\S+@`: 15 s of CPU on 64 K characters without a space) is bounded, or it stops at the next
# character that could start another match (benchmarks/adversarial_text.py measures each judge).
_FENCED_CODE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_MD_LINK = re.compile(r"!?\[([^\[\]\n]{0,200})\]\([^()\s]{0,2000}\)")
_URL = re.compile(r"(?:https?://|www\.)\S+", re.IGNORECASE)
_EMAIL = re.compile(r"[^\s@]{1,64}@[^\s@]{1,255}\.\w{1,63}")  # RFC 5321's lengths
_HTML_TAG = re.compile(r"</?[A-Za-z][^>\n]{0,80}>")
_LINE_LEADER = re.compile(r"^[ \t]*(?:#{1,6}|>+|[-+•]|\d{1,3}[.)])[ \t]+", re.MULTILINE)
_MARKERS = re.compile(r"[*_~`#|\"“”„«»‹›「」『』《》〈〉【】()\[\]{}]")
# Sentence ends: Latin/Arabic/Devanagari punctuation before a space or line end, CJK ones anywhere.
_SENTENCE_END = re.compile(r"(?<=[.!?؟।॥…])\s+|(?<=[。！？])|\n+")


@dataclass(frozen=True, slots=True)
class Segment:
    """One sentence-like piece of a reply, with its letter weight and dominant script."""

    text: str
    weight: int
    script: str  # one of the script names above, or "mixed" when no script dominates
    has_kana: bool


@lru_cache(maxsize=8192)  # pure and hot: every letter of every reply goes through it
def script_of(char: str) -> str:
    """The script of one letter (OTHER for letters outside the ranges we judge)."""
    code = ord(char)
    for low, high, name in _RANGES:
        if low <= code <= high:
            return name
    return OTHER


def strip_markup(text: str) -> str:
    """Remove Markdown, code, URLs, HTML tags and quote marks, keeping the prose in between."""
    text = _FENCED_CODE.sub(" ", text)
    text = _INLINE_CODE.sub(" ", text)
    text = _MD_LINK.sub(r"\1", text)
    text = _URL.sub(" ", text)
    text = _EMAIL.sub(" ", text)
    text = _HTML_TAG.sub(" ", text)
    text = _LINE_LEADER.sub("", text)
    return _MARKERS.sub(" ", text)


def script_weights(text: str) -> Counter[str]:
    """Letter weight per script; marks count so Thai and decomposed accents are not lost."""
    weights: Counter[str] = Counter()
    for char in text:
        if not (char.isalpha() or _is_mark(char)):
            continue
        name = script_of(char)
        weights[name] += DENSE_SCRIPT_WEIGHT if name in DENSE_SCRIPTS else 1
    return weights


def _is_mark(char: str) -> bool:
    return (
        "\u0300" <= char <= "\u036f" or "\u0e31" <= char <= "\u0e4e" or "\u0900" <= char <= "\u0903"
    )


def segment(text: str) -> list[Segment]:
    """Split prepared text into sentence-like segments that hold at least one letter."""
    segments: list[Segment] = []
    for sentence in _SENTENCE_END.split(text):
        for piece in _script_runs(sentence.split()):
            _append(segments, piece)
    return segments


def _script_runs(words: list[str]) -> list[str]:
    """Cut a sentence where the script changes between words: Thai has no sentence punctuation,
    so a foreign sentence glued to Thai (or Korean, Hindi...) text must be cut off at its spaces."""
    runs: list[list[str]] = []
    previous = ""
    for word in words:
        weights = script_weights(word)
        current = max(weights, key=lambda name: weights[name]) if weights else previous
        if current in (HAN, KANA):
            current = "cjk"  # kanji and kana alternate inside Japanese words
        if not runs or (current != previous and previous):
            runs.append([])
        runs[-1].append(word)
        previous = current
    return [" ".join(run) for run in runs]


def _append(segments: list[Segment], piece: str) -> None:
    weights = script_weights(piece)
    total = sum(weights.values())
    if total:
        segments.append(Segment(piece, total, _dominant(weights, total), weights[KANA] > 0))


def _dominant(weights: Counter[str], total: int) -> str:
    cjk = weights[HAN] + weights[KANA]
    if weights[KANA] and cjk >= DOMINANT_SCRIPT_SHARE * total:
        return KANA  # Han plus kana is Japanese
    name, weight = max(weights.items(), key=lambda item: item[1])
    return name if weight >= DOMINANT_SCRIPT_SHARE * total else "mixed"
