"""The one lingua detector of the process: built lazily on first use, shared by every thread.

Memory is the trade-off that shaped this module. A detector of the 17 languages in high
accuracy mode with preloaded models costs ~375 MB of resident memory per process (measured),
and a round may run several processes. So the detector is built in lazy mode (models load on
first need) and is only ever asked about Latin-script text: the language judge decides Hangul,
kana, Han, Thai, Arabic, Devanagari and Cyrillic segments from their script, because among the
17 languages each of those scripts belongs to one language (or, for Han, to Chinese/Japanese,
told apart by kana). Only the ten Latin-script languages' n-gram models are ever loaded:
~265 MB resident for the whole process after warm-up (~21 MB before), with the same
high-accuracy answers on Latin text, and nothing loaded at all while only non-Latin replies are
judged. Low accuracy mode (~25 MB) was rejected: it is weak on the sentence-length segments we
judge, where pt/es/it must be told apart. Build cost: ~2 s of model loading on the first Latin
text (warm_up() moves it to round start); then ~0.1-0.4 ms per sentence.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from core.vocabulary import LANGUAGES

if TYPE_CHECKING:  # lingua is imported lazily so that importing the judge stays cheap
    from lingua import LanguageDetector

# Latin-script sample that makes lazy mode load every Latin model during warm-up.
_WARM_UP_TEXT = "Ela abriu a porta devagar e olhou para a rua vazia antes de sair."

_lock = threading.Lock()
_detector: LanguageDetector | None = None


def detector() -> LanguageDetector:
    """The shared detector, built on first call (thread-safe; lingua detectors are thread-safe)."""
    global _detector
    if _detector is None:
        with _lock:
            if _detector is None:
                from lingua import IsoCode639_1, LanguageDetectorBuilder

                codes = [getattr(IsoCode639_1, code.upper()) for code in LANGUAGES]
                _detector = LanguageDetectorBuilder.from_iso_codes_639_1(*codes).build()
    return _detector


# Ten times a long sentence; a segment is cut here before the detector reads it (see confidences).
MAX_DETECTED_CHARS = 2000


def warm_up() -> None:
    """Build the detector and load the Latin-script models now, so the first judgement is fast."""
    confidences(_WARM_UP_TEXT)


def confidences(text: str) -> dict[str, float]:
    """Confidence per ISO 639-1 code for `text` (values sum to 1, or are all 0 when unknown).

    Only the first MAX_DETECTED_CHARS characters are read: lingua's cost grows faster than the
    length (one 64 K-character word: 1.2 s, a 16 K one: 0.07 s), and a sentence-like segment
    decides its language long before that."""
    values = detector().compute_language_confidence_values(text[:MAX_DETECTED_CHARS])
    return {value.language.iso_code_639_1.name.lower(): value.value for value in values}
