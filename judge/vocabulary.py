"""Which strings are words of a language, and which are mostly the tail of longer words.

A reply that starts mid-word ("ing the door creaked", "ly, she said") opens with a piece that
is either no word of the expected language at all, or a string that the language uses far more
often as the *ending* of longer words than on its own ("ing", "ed", "tion", "s"). Both are read
from wordfreq's "small" lists (real-corpus frequencies: Wikipedia, subtitles, news, books, web
text; words with a frequency of at least one per million; Apache-2.0 code, CC BY-SA 4.0 data).
They cover 16 of the 17 product languages; Thai has no list, and the Korean, Japanese and
Chinese lists hold morphemes rather than written words (see judge.leading for what that means).

Cost: a list is loaded on first use of its language, which only happens when a reply starts
with a lowercase or uncased word (most replies start with a capital, an opener or a name).
Measured in benchmarks/garbage_eval.py: see benchmarks/README.md. A look-up is two bisections.
Thread-safe, like judge.detector.
"""

from __future__ import annotations

import bisect
import threading
from array import array
from dataclasses import dataclass
from itertools import accumulate

# The 16 product languages wordfreq has a list for (it has none for Thai).
LISTED = frozenset({"pt", "es", "id", "ko", "ja", "zh", "en", "fr", "de", "it", "ru", "pl", "tr", "vi", "ar", "hi"})


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """One language's words sorted by their reversed spelling, with their frequencies.

    Sorting by the reversed spelling puts every word ending with a given piece in one range, so
    both look-ups are two bisections; plain arrays keep a list at ~3 MB instead of a dict's ~10.
    """

    reversed_words: list[str]  # sorted
    frequencies: array[float]  # frequencies[i] belongs to reversed_words[i]
    cumulative: array[float]  # cumulative[i] = total frequency of reversed_words[:i]

    def word_frequency(self, word: str) -> float:
        """How often `word` (case-folded) occurs as a word, 0.0 when it is not in the list."""
        key = word.casefold()[::-1]
        index = bisect.bisect_left(self.reversed_words, key)
        if index < len(self.reversed_words) and self.reversed_words[index] == key:
            return self.frequencies[index]
        return 0.0

    def ending_frequency(self, piece: str) -> float:
        """Total frequency of the longer words that end with `piece` (case-folded)."""
        key = piece.casefold()[::-1]
        low = bisect.bisect_left(self.reversed_words, key)
        high = bisect.bisect_left(self.reversed_words, key + "\U0010ffff")
        total = self.cumulative[high] - self.cumulative[low]
        return max(0.0, total - self.word_frequency(piece))


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
    # wordfreq's own get_frequency_dict() caches every list it builds for the life of the
    # process; reading the packaged file directly keeps one compact copy.
    from wordfreq import DATA_PATH, read_cBpack  # lazy: importing the judge stays cheap

    buckets = read_cBpack(str(DATA_PATH / f"small_{language}.msgpack.gz"))
    # Bucket i holds the words whose frequency rounds to -i centibels (10 ** (-i / 100)).
    pairs = sorted((word[::-1], 10 ** (-index / 100)) for index, bucket in enumerate(buckets) for word in bucket)
    frequencies = array("d", (value for _, value in pairs))
    return Vocabulary([word for word, _ in pairs], frequencies, array("d", [0.0, *accumulate(frequencies)]))
