"""Test material for the reply judges: the clean corpus and generators of planted defects."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import ftfy.bad_codecs  # noqa: F401  (registers the "sloppy-windows-1252" codec)

DATA = Path(__file__).parent / "data"
BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
LANGUAGES = (
    "pt", "es", "id", "ko", "ja", "zh", "en", "fr", "de", "it", "ru", "pl", "tr", "vi", "th", "ar", "hi",
)
LATIN_LANGUAGES = ("pt", "es", "id", "en", "fr", "de", "it", "pl", "tr", "vi")
# Sentence ends, plus the danda of Hindi and the spaces between Thai sentences.
_SENTENCE = re.compile(r"(?<=[.!?。！？।])\s*(?=\S)|\n+|(?<=[\u0e00-\u0e7f])\s+(?=[\u0e00-\u0e7f])")


def load_benchmark(name: str) -> ModuleType:
    """benchmarks/<name>.py as a module (registered in sys.modules: its dataclasses need it)."""
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def load_replies(folder: str, language: str) -> list[str]:
    """Replies of one language stored in data/<folder>/<language>.txt, separated by '---' lines."""
    text = (DATA / folder / f"{language}.txt").read_text(encoding="utf-8")
    return [reply.strip() for reply in re.split(r"^---$", text, flags=re.MULTILINE) if reply.strip()]


def clean_corpus() -> dict[str, list[str]]:
    """Every clean reply, by language."""
    return {language: load_replies("clean", language) for language in LANGUAGES}


def sentences(reply: str) -> list[str]:
    """A rough sentence split, good enough to build mixes."""
    return [s.strip() for s in _SENTENCE.split(reply) if s.strip()]


def interleave(first: str, second: str) -> str:
    """Alternate the sentences of two replies, starting with the first: a 50/50 mix."""
    a, b = sentences(first), sentences(second)
    mixed = [s for pair in zip(a, b, strict=False) for s in pair]
    return " ".join(mixed)


def mojibake(text: str, codec: str = "sloppy-windows-1252") -> str:
    """UTF-8 bytes decoded with a legacy code page, the classic corruption."""
    return text.encode("utf-8").decode(codec)


# The real incident's pattern: Portuguese prose whose function words turn Spanish.
PT_TO_ES = {
    "e": "y", "o": "el", "os": "los", "as": "las", "um": "un", "uma": "una", "com": "con", "mas": "pero",
    "muito": "muy", "ela": "ella", "ele": "él", "você": "usted", "não": "no", "do": "del", "ao": "al",
    "isso": "eso", "também": "también", "quando": "cuando", "onde": "donde", "então": "entonces",
    "até": "hasta", "já": "ya", "eu": "yo", "agora": "ahora", "aqui": "aquí", "depois": "después",
    "em": "en", "na": "en la", "no": "en el", "sem": "sin", "bem": "bien", "tudo": "todo", "ainda": "todavía",
}


def pt_with_spanish_words(text: str, every: int = 2) -> str:
    """Replace every `every`-th Portuguese function word with its Spanish counterpart."""
    seen = 0

    def swap(match: re.Match[str]) -> str:
        nonlocal seen
        word = match.group()
        target = PT_TO_ES.get(word.lower())
        if target is None:
            return word
        seen += 1
        return target if seen % every == 0 else word

    return re.sub(r"\w+", swap, text)


def _refusal_lines(name: str) -> list[tuple[str, str]]:
    rows = (DATA / "refusal" / name).read_text(encoding="utf-8").splitlines()
    pairs = [tuple(row.split(" | ", 1)) for row in rows if row.strip() and not row.startswith("#")]
    return [(lang, text) for lang, text in pairs]


# (language, reply) pairs: refusals the judge must fail, and in-character refusals it must pass.
REFUSALS = _refusal_lines("refusals.txt")
IN_CHARACTER = _refusal_lines("in_character.txt")
