"""Which strings are words of a language, and which are mostly the tail of longer words.

A reply that starts mid-word ("ing the door creaked", "ly, she said") opens with a piece that
is either no word of the expected language at all, or a string that the language uses far more
often as the *ending* of longer words than on its own ("ing", "ed", "tion", "s"). Both are read
from wordfreq's "small" lists (real-corpus frequencies: Wikipedia, subtitles, news, books, web
text; words with a frequency of at least one per million; Apache-2.0 code, CC BY-SA 4.0 data).
They cover 16 of the 17 product languages; Thai has no list, and the Korean, Japanese and
Chinese lists hold morphemes rather than written words (see judge.leading for what that means).

Cost: a list is loaded on first use of its language (10-30 ms, ~3-9 MB resident each; ~75 MB for
all 16), then a look-up is a dict hit plus two bisections. Thread-safe, like judge.detector.
"""

from __future__ import annotations

import bisect
import threading
from dataclasses import dataclass
from itertools import accumulate

# The 16 product languages wordfreq has a list for (it has none for Thai).
LISTED = frozenset({"pt", "es", "id", "ko", "ja", "zh", "en", "fr", "de", "it", "ru", "pl", "tr", "vi", "ar", "hi"})


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """One language's word frequencies, with the words also sorted by their reversed spelling."""

    frequency: dict[str, float]
    reversed_words: list[str]  # sorted
    cumulative: list[float]  # cumulative[i] = total frequency of reversed_words[:i]

    def word_frequency(self, word: str) -> float:
        """How often `word` (case-folded) occurs as a word, 0.0 when it is not in the list."""
        return self.frequency.get(word.casefold(), 0.0)

    def ending_frequency(self, piece: str) -> float:
        """Total frequency of the longer words that end with `piece` (case-folded)."""
        key = piece.casefold()[::-1]
        low = bisect.bisect_left(self.reversed_words, key)
        high = bisect.bisect_left(self.reversed_words, key + "\U0010ffff")
        total = self.cumulative[high] - self.cumulative[low]
        return max(0.0, total - self.frequency.get(piece.casefold(), 0.0))


_lock = threading.Lock()
_loaded: dict[str, Vocabulary] = {}


def vocabulary(language: str) -> Vocabulary | None:
    """The vocabulary of `language` (ISO 639-1), or None when no list exists for it."""
    if language not in LISTED:
        return None
    found = _loaded.get(language)
    if found is None:
        with _lock:
            found = _loaded.get(language)
            if found is None:
                found = _build(language)
                _loaded[language] = found
    return found


def _build(language: str) -> Vocabulary:
    from wordfreq import get_frequency_dict  # lazy: importing the judge stays cheap

    frequency = get_frequency_dict(language, wordlist="small")
    pairs = sorted((word[::-1], value) for word, value in frequency.items())
    reversed_words = [word for word, _ in pairs]
    cumulative = [0.0, *accumulate(value for _, value in pairs)]
    return Vocabulary(frequency, reversed_words, cumulative)
