"""Unnatural repetition: a sentence or a run of words looping, as degenerate decoding produces.

Words are tokens for spaced scripts; each CJK/kana/Hangul/Thai character is a token, since
those scripts do not separate words. Laughter floods ("ㅋㅋㅋㅋ", "哈哈哈哈") are a single
repeated token and are ignored unless they are absurdly long.
"""

from __future__ import annotations

import re
from collections import Counter

from judge.segments import DENSE_SCRIPTS, script_of, script_weights

# A sentence this heavy (in weighted letters) that recurs this many times is a loop, not a refrain.
MIN_LOOP_SENTENCE_LETTERS = 15
MIN_SENTENCE_REPEATS = 3
# A unit of 2..MAX_PERIOD tokens repeated back to back this often, covering this many tokens.
MAX_PERIOD = 24
MIN_UNIT_REPEATS = 4
MIN_LOOP_TOKENS = 16
# One word (not a dense-script character) repeated back to back this often is a loop.
MIN_SINGLE_WORD_REPEATS = 16
# Over enough n-grams, so few distinct ones means the text keeps saying the same thing.
NGRAM = 4
MIN_NGRAMS = 40
MIN_DISTINCT_NGRAM_SHARE = 0.5

_WORD = re.compile(r"\w+")
_SENTENCE = re.compile(r"[^.!?。！？\n…]+")


def find_repetition(text: str) -> str | None:
    """The reason the reply loops, or None when it does not repeat itself unnaturally."""
    words = tokens(text)
    return _repeated_sentence(text) or _tandem_loop(words) or _low_ngram_variety(_collapse(words))


def tokens(text: str) -> list[str]:
    """Lowercased words, with dense-script runs split into single characters."""
    result: list[str] = []
    for word in _WORD.findall(text.lower()):
        if any(script_of(char) in DENSE_SCRIPTS for char in word):
            result.extend(char for char in word if char.isalnum())
        else:
            result.append(word)
    return result


def _repeated_sentence(text: str) -> str | None:
    counts: Counter[str] = Counter()
    for sentence in _SENTENCE.findall(text):
        words = tokens(sentence)
        if sum(script_weights(sentence).values()) >= MIN_LOOP_SENTENCE_LETTERS:
            counts[" ".join(words)] += 1
    if not counts:
        return None
    sentence, count = counts.most_common(1)[0]
    if count < MIN_SENTENCE_REPEATS:
        return None
    return f"repetition: the same sentence appears {count} times ({sentence[:40]!r})"


def _tandem_loop(words: list[str]) -> str | None:
    for period in range(1, MAX_PERIOD + 1):
        run = 0
        for index in range(len(words) - period):
            run = run + 1 if words[index] == words[index + period] else 0
            repeats = run // period + 1
            if repeats < MIN_UNIT_REPEATS or run + period < MIN_LOOP_TOKENS and period > 1:
                continue
            unit = words[index + 1 - run:index + 1 - run + period]
            if _is_loop(unit, repeats):
                return f"repetition: {' '.join(unit)[:40]!r} repeats {repeats} times in a row"
    return None


def _is_loop(unit: list[str], repeats: int) -> bool:
    if len(unit) == 1:
        dense = any(script_of(char) in DENSE_SCRIPTS for char in unit[0])
        return not dense and repeats >= MIN_SINGLE_WORD_REPEATS
    return len(set(unit)) >= 2


def _collapse(words: list[str]) -> list[str]:
    """Merge back-to-back identical tokens, so laughter floods do not read as loops."""
    return [word for index, word in enumerate(words) if index == 0 or words[index - 1] != word]


def _low_ngram_variety(words: list[str]) -> str | None:
    grams = [tuple(words[i:i + NGRAM]) for i in range(len(words) - NGRAM + 1)]
    if len(grams) < MIN_NGRAMS:
        return None
    share = len(set(grams)) / len(grams)
    if share >= MIN_DISTINCT_NGRAM_SHARE:
        return None
    return f"repetition: only {share:.0%} of {len(grams)} {NGRAM}-word sequences are distinct"
