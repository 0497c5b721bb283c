"""Which strings are words of a language, and which are mostly the tail of longer words.

A reply starting mid-word ("ing the door creaked") opens with no word of its language, or with a
piece the language uses far more often as an ending ("ing", "tion"): both are read from wordfreq's
"small" lists (real-corpus frequencies of at least one per million; Apache-2.0 code, CC BY-SA 4.0
data), which cover 16 of the 17 languages (not Thai; Korean, Japanese and Chinese hold morphemes:
judge.replies.leading). Packaged data like lingua's models, loaded on a language's first use, which
only a reply starting with a lowercase or uncased word reaches. Thread-safe.
"""

from __future__ import annotations

import bisect
import math
import threading
from array import array
from dataclasses import dataclass
from itertools import accumulate

# The 16 product languages wordfreq has a list for (it has none for Thai).
LISTED = frozenset({"pt", "es", "id", "ko", "ja", "zh", "en", "fr", "de", "it", "ru", "pl", "tr", "vi", "ar", "hi"})


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """One language's words sorted by their reversed spelling (every word ending with a piece in one range:
    look-ups are two bisections), with their frequencies; plain arrays keep a list at ~3 MB, not a dict's ~10."""

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


# The frequent part of a list: words of at least 1e-5 (wordfreq's Zipf 4, ~3-8 thousand words
# a language instead of 30-60 thousand), ~10x cheaper to load. Enough where only clear endings
# and frequent words are asked about, never to say that something is *not* a word.
FREQUENT = 1e-5

_lock = threading.Lock()
_loaded: dict[tuple[str, float], Vocabulary] = {}


def vocabulary(language: str, min_frequency: float = 0.0) -> Vocabulary | None:
    """The vocabulary of `language` (ISO 639-1) down to `min_frequency` (0: the whole list), None without a list."""
    if language not in LISTED:
        return None
    key = (language, min_frequency)
    found = _loaded.get(key)
    if found is None:
        with _lock:
            found = _loaded.get(key)
            if found is None:
                found = _build(language, min_frequency)
                _loaded[key] = found
    return found


def _build(language: str, min_frequency: float) -> Vocabulary:
    buckets = _read_list(language)
    # Bucket i holds the words whose frequency rounds to -i centibels (10 ** (-i / 100)).
    last = len(buckets) if min_frequency <= 0 else int(-100 * math.log10(min_frequency)) + 1
    pairs = sorted(
        (word[::-1], 10 ** (-index / 100)) for index, bucket in enumerate(buckets[:last]) for word in bucket
    )
    frequencies = array("d", (value for _, value in pairs))
    return Vocabulary([word for word, _ in pairs], frequencies, array("d", [0.0, *accumulate(frequencies)]))


def _read_list(language: str) -> list[list[str]]:
    """wordfreq's packaged "small" list: gzipped msgpack, a header then one word list per centibel.
    Read directly: `import wordfreq` costs ~150 ms a process and keeps a second copy of each list."""
    import gzip
    import importlib.util
    from pathlib import Path

    import msgpack

    spec = importlib.util.find_spec("wordfreq")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the wordfreq package is not installed (a dependency of canary)")
    path = Path(next(iter(spec.submodule_search_locations))) / "data" / f"small_{language}.msgpack.gz"
    header, *buckets = msgpack.unpackb(gzip.decompress(path.read_bytes()), raw=False)
    if header != {"format": "cB", "version": 1}:
        raise RuntimeError(f"{path}: unexpected word list format {header!r}")
    return [[str(word) for word in bucket] for bucket in buckets]
