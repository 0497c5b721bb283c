"""Text corruptions built from the banks: what a degraded host does to an otherwise fine reply.

Pure functions of (text or sentences, banks, rng): the same draw gives the same corruption.
"""

from __future__ import annotations

import random

from simulator.banks import Bank

REPLACEMENT_CHAR = "\ufffd"


def leading_garbage(text: str, fragments: tuple[str, ...], rng: random.Random) -> str:
    """A stray fragment glued before the reply (the real incident: 19 of 20 replies)."""
    fragment = rng.choice(fragments)
    glue = "" if fragment.endswith(("\n", " ")) or rng.random() < 0.6 else " "
    return fragment + glue + text


def mix_sentences(own: list[str], other: Bank, ratio: float, rng: random.Random) -> list[str]:
    """Replace about `ratio` of the sentences (at least two) with sentences of another language."""
    count = min(len(own), max(2, round(len(own) * ratio)))
    slots = set(rng.sample(range(len(own)), count))
    foreign = other.pick(rng, count)
    return [foreign.pop() if i in slots else s for i, s in enumerate(own)]


def mix_words(sentence: str, other: Bank, ratio: float, rng: random.Random) -> str:
    """Swap about `ratio` of a sentence's words for words of another language (code-switching)."""
    words = sentence.split(" ")
    vocabulary = other.words
    if len(words) < 3 or not vocabulary:
        return sentence
    for i in range(1, len(words) - 1):  # keep the first and last word: openers and end punctuation
        if rng.random() < ratio:
            words[i] = rng.choice(vocabulary)
    return " ".join(words)


def mix_language(
    sentences: list[str], own: Bank, other: Bank, level: str, ratio: float, rng: random.Random
) -> list[str]:
    """Sentence-level, word-level or both kinds of mixing; unspaced scripts fall back to sentences."""
    if level in ("sentence", "both") or not own.splits_words:
        sentences = mix_sentences(sentences, other, ratio if level == "sentence" else ratio / 2, rng)
    if level in ("word", "both") and own.splits_words and other.splits_words:
        sentences = [mix_words(s, other, ratio / 2, rng) if s in own.sentences else s for s in sentences]
    return sentences


def mojibake(text: str, encoding: str) -> str:
    """UTF-8 bytes read as cp1252/latin-1 (`é` -> `Ã©`); bytes cp1252 lacks fall back to latin-1."""
    out: list[str] = []
    for byte in text.encode("utf-8"):
        char = bytes([byte])
        try:
            out.append(char.decode(encoding))
        except UnicodeDecodeError:
            out.append(char.decode("latin-1"))
    return "".join(out)


def replacement_chars(text: str, density: float, rng: random.Random) -> str:
    """U+FFFD in place of some letters, as when a decoder met bytes it could not read."""
    chars = list(text)
    letters = [i for i, c in enumerate(chars) if c.isalpha()]
    for i in rng.sample(letters, max(1, round(len(letters) * density))) if letters else []:
        chars[i] = REPLACEMENT_CHAR
    return "".join(chars)


def repetition(sentences: list[str], times: int, rng: random.Random) -> list[str]:
    """A phrase stuck in a loop: one sentence repeated `times` times after a normal opening."""
    opening = sentences[: rng.randint(1, 2)]
    looped = rng.choice(sentences)
    return opening + [looped] * times


def short_reply(sentence: str, words: int, spaced: bool) -> str:
    """The first `words` words of a sentence (unspaced scripts: two characters a word)."""
    if spaced:
        return " ".join(sentence.split()[:words])
    return sentence[: words * 2]
