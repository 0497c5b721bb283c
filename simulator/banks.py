"""Text banks: hand-written roleplay sentences per language, the raw material of every reply
(`simulator/banks/<code>.yaml`: `code`, `name`, `markers`, `sentences`, `refusals`)."""

from __future__ import annotations

import functools
import random
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from core.errors import SimulatorError
from core.vocabulary import LANGUAGES

BANKS_DIR = Path(__file__).parent / "banks"
MIN_SENTENCES = 30

# Scripts written without spaces between words: sentences are glued without a separator and
# word-level mixing has no words to swap.
_UNSPACED = frozenset({"zh", "ja"})
_NO_WORD_SPLIT = frozenset({"zh", "ja", "th"})
_PUNCT = re.compile(r"^[\W_]+|[\W_]+$")


@dataclass(frozen=True, slots=True)
class Bank:
    """The sentences, refusals and marker words of one language."""

    code: str
    name: str
    markers: tuple[str, ...]
    sentences: tuple[str, ...]
    refusals: tuple[str, ...]

    @property
    def separator(self) -> str:
        return "" if self.code in _UNSPACED else " "

    @property
    def splits_words(self) -> bool:
        return self.code not in _NO_WORD_SPLIT

    @property
    def words(self) -> tuple[str, ...]:
        """Bare words of every sentence (spaced scripts only), for word-level mixing."""
        found: list[str] = []
        for sentence in self.sentences:
            for raw in sentence.split():
                word = _PUNCT.sub("", raw)
                if len(word) > 1:
                    found.append(word)
        return tuple(found)

    def pick(self, rng: random.Random, count: int) -> list[str]:
        """`count` distinct sentences (fewer if the bank is smaller)."""
        return rng.sample(self.sentences, min(count, len(self.sentences)))

    def join(self, sentences: list[str]) -> str:
        """Sentences as one or two paragraphs, the way a roleplay reply reads."""
        if len(sentences) < 4:
            return self.separator.join(sentences)
        cut = len(sentences) // 2
        return self.separator.join(sentences[:cut]) + "\n\n" + self.separator.join(sentences[cut:])


class BankError(SimulatorError):
    """A bank file is missing or malformed."""


def load_bank(code: str, directory: Path = BANKS_DIR) -> Bank:
    """Load and check one language's bank."""
    return _load(code, str(directory))


def all_banks(directory: Path = BANKS_DIR) -> dict[str, Bank]:
    """Every language's bank, keyed by ISO code."""
    return {code: load_bank(code, directory) for code in LANGUAGES}


@functools.lru_cache(maxsize=64)
def _load(code: str, directory: str) -> Bank:
    path = Path(directory) / f"{code}.yaml"
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise BankError(f"{path}: cannot read bank: {exc}") from exc
    if not isinstance(raw, dict):
        raise BankError(f"{path}: expected a mapping at the top level")

    def strings(key: str, minimum: int) -> tuple[str, ...]:
        value = raw.get(key)
        if not isinstance(value, list) or not all(isinstance(s, str) and s.strip() for s in value):
            raise BankError(f"{path}: {key}: expected a list of non-empty strings")
        if len(value) < minimum:
            raise BankError(f"{path}: {key}: expected at least {minimum} entries, got {len(value)}")
        return tuple(s.strip() for s in value)

    if raw.get("code") != code:
        raise BankError(f"{path}: code: expected {code!r}, got {raw.get('code')!r}")
    return Bank(
        code=code,
        name=str(raw.get("name") or code),
        markers=tuple(m.lower() for m in strings("markers", 5)),
        sentences=strings("sentences", MIN_SENTENCES),
        refusals=strings("refusals", 1),
    )
