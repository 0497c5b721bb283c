"""Language integrity of one reply: full switch, sustained mixing, encoding corruption, garbage.

`assess` runs the defects any text can carry first (artifacts, encoding, leading garbage,
repetition), then reads the language sentence by sentence: by script, or by lingua for Latin text
(judge.replies.detector), plus word-level mixing of close languages (judge.replies.lexicon). The
thresholds and why: docs/contracts.md (languages) and docs/design-notes.md §2.1. A reply takes
~1.5-3 ms.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import StrEnum

from core.untrusted import pair_surrogates
from core.vocabulary import LANGUAGE_NAMES
from judge.replies import detector
from judge.replies.artifacts import find_artifacts
from judge.replies.encoding import find_corruption
from judge.replies.leading import find_leading_garbage
from judge.replies.lexicon import find_word_mixing, looks_chinese
from judge.replies.repetition import find_repetition
from judge.replies.segments import HAN, LATIN, SCRIPT_LANGUAGE, Segment, segment, strip_markup
from judge.replies.verdict import Verdict, failed, inconclusive, passed


class LanguageCode(StrEnum):
    """The codes of the language judge (judge/replies/verdict.py); earlier defects carry their finder's code."""

    TOO_SHORT = "too_short"
    AMBIGUOUS = "ambiguous"
    LANGUAGE_SWITCH = "language_switch"
    LANGUAGE_MIXING = "language_mixing"


# The languages written in Latin script: only between these does lingua have to decide.
LATIN_SCRIPT_LANGUAGES = frozenset({"pt", "es", "id", "en", "fr", "de", "it", "pl", "tr", "vi"})
# Under this many weighted letters, close languages are routinely confused: inconclusive.
MIN_LETTERS = 40
# A script-attributed sentence needs this weight (one dense character is 3) to count.
MIN_SCRIPT_SEGMENT_WEIGHT = 3
# A Latin sentence needs this many letters before lingua's answer is worth counting.
MIN_LATIN_SEGMENT_LETTERS = 12
# lingua: foreign when the top language has >= this confidence...
FOREIGN_TOP_CONFIDENCE = 0.7
# ...and the expected language <= this (0% false positives on thousands of pure replies).
FOREIGN_MAX_EXPECTED = 0.1
# Sustained mixing: foreign sentences hold this share of the attributed weight...
MIXING_SHARE = 0.15
# ...and there are at least this many of them (one foreign sentence is a catch-phrase).
MIN_FOREIGN_SEGMENTS = 2
# A full switch: nearly everything attributed is foreign.
FULL_SWITCH_SHARE = 0.8


@dataclass(frozen=True, slots=True)
class _Tally:
    total_weight: int
    decided_weight: int
    foreign_weight: int
    sentences: int
    foreign: Counter[str]  # foreign language -> number of sentences


def warm_up() -> None:
    """Build the shared lingua detector and load its models now (call at round start)."""
    detector.warm_up()


def assess(text: str, expected: str) -> Verdict:
    """Judge whether `text` is healthy text in language `expected` (an ISO 639-1 code)."""
    if expected not in LANGUAGE_NAMES:
        known = ", ".join(sorted(LANGUAGE_NAMES))
        raise ValueError(f"unsupported language {expected!r}; expected one of {known}")
    text = pair_surrogates(text)  # a lone UTF-16 half (a split emoji) would crash the detector
    defect = (
        find_artifacts(text)
        or find_corruption(text)
        or find_leading_garbage(text, expected)
        or find_repetition(text)
    )
    if defect:
        return defect
    segments = segment(strip_markup(text))
    tally = _tally(segments, expected)
    name = _name(expected)
    if tally.total_weight < MIN_LETTERS:
        letters = tally.total_weight
        return inconclusive(LanguageCode.TOO_SHORT,
            f"language: too short to judge ({letters} letters, need {MIN_LETTERS})")
    if tally.decided_weight < MIN_LETTERS:
        decided = tally.decided_weight
        return inconclusive(LanguageCode.AMBIGUOUS,
            f"language: ambiguous, only {decided} letters attributed to a language")
    verdict = _judge_sentences(tally, name)
    if verdict:
        return verdict
    mixing = find_word_mixing([s.text for s in segments], expected)
    if mixing:
        other, foreign_count, native_count = mixing
        return failed(
            LanguageCode.LANGUAGE_MIXING,
            f"language: {name} reply mixes in {_name(other)} words "
            f"({foreign_count} {LANGUAGE_NAMES[other]} markers"
            f" vs {native_count} {LANGUAGE_NAMES[expected]})"
        )
    return passed(_pass_reason(tally, name))


def _judge_sentences(tally: _Tally, name: str) -> Verdict | None:
    if not tally.foreign:
        return None
    main, count = tally.foreign.most_common(1)[0]
    share = tally.foreign_weight / tally.decided_weight
    if share >= FULL_SWITCH_SHARE and tally.foreign_weight >= MIN_LETTERS:
        return failed(
            LanguageCode.LANGUAGE_SWITCH,
            f"language: switched to {_name(main)}: {count} of {tally.sentences} sentences,"
            f" expected {name}"
        )
    foreign_count = sum(tally.foreign.values())
    if share >= MIXING_SHARE and foreign_count >= MIN_FOREIGN_SEGMENTS:
        return failed(
            LanguageCode.LANGUAGE_MIXING,
            f"language: {foreign_count} of {tally.sentences} sentences are {_name(main)}"
            f"{_others(tally.foreign, main)}, expected {name}"
        )
    return None


def _tally(segments: list[Segment], expected: str) -> _Tally:
    reply_has_kana = any(s.has_kana for s in segments)
    decided = foreign_weight = 0
    foreign: Counter[str] = Counter()
    for piece in segments:
        label = _attribute(piece, expected, reply_has_kana)
        if label is None:
            continue
        decided += piece.weight
        if label != expected:
            foreign_weight += piece.weight
            foreign[label] += 1
    total = sum(s.weight for s in segments)
    return _Tally(total, decided, foreign_weight, len(segments), foreign)


def _attribute(piece: Segment, expected: str, reply_has_kana: bool) -> str | None:
    """The language of one sentence, or None when it cannot be told with confidence."""
    if piece.script in SCRIPT_LANGUAGE:
        return SCRIPT_LANGUAGE[piece.script] if piece.weight >= MIN_SCRIPT_SEGMENT_WEIGHT else None
    if piece.script == HAN:
        if piece.weight < MIN_SCRIPT_SEGMENT_WEIGHT:
            return None
        # Kanji-only sentences are normal in Japanese; a Japanese reply without any kana is not,
        # and neither is a sentence holding characters only Chinese uses.
        if expected == "ja" and reply_has_kana and not looks_chinese(piece.text):
            return None
        return "zh"
    if piece.script != LATIN or piece.weight < MIN_LATIN_SEGMENT_LETTERS:
        return None
    values = detector.confidences(piece.text)
    top = max(values, key=lambda code: values[code])
    if values[top] == 0:
        return None
    if top == expected or expected not in LATIN_SCRIPT_LANGUAGES:
        return top  # a Latin sentence is foreign to a Korean reply, whichever Latin language it is
    if values[top] >= FOREIGN_TOP_CONFIDENCE and values.get(expected, 0.0) <= FOREIGN_MAX_EXPECTED:
        return top
    return None


def _pass_reason(tally: _Tally, name: str) -> str:
    if not tally.foreign:
        return f"language: {tally.sentences} sentences, all attributable ones {name}"
    count = sum(tally.foreign.values())
    main = tally.foreign.most_common(1)[0][0]
    return (
        f"language: {name}; {count} of {tally.sentences} sentences in {_name(main)}"
        " (below the mixing threshold)"
    )


def _others(foreign: Counter[str], main: str) -> str:
    rest = [f"{n} {_name(code)}" for code, n in foreign.items() if code != main]
    return f" (plus {', '.join(rest)})" if rest else ""


def _name(code: str) -> str:
    return f"{LANGUAGE_NAMES.get(code, code)} ({code})"
