"""Which language a chat request asks for: a language named in a system message (a name, or an ISO code
in an explicit form: `language: pt`, `pt-BR`), else the last user message's script and function words,
else English."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from core.vocabulary import LANGUAGES
from simulator.banks import all_banks

DEFAULT_LANGUAGE = "en"

# English and native names; matched as whole words, case-insensitively.
_NAMES: dict[str, tuple[str, ...]] = {
    "pt": ("portuguese", "português", "brazilian portuguese"),
    "es": ("spanish", "español", "castilian"),
    "id": ("indonesian", "bahasa indonesia"),
    "ko": ("korean", "한국어"),
    "ja": ("japanese", "日本語"),
    "zh": ("chinese", "mandarin", "中文", "简体中文"),
    "en": ("english",),
    "fr": ("french", "français"),
    "de": ("german", "deutsch"),
    "it": ("italian", "italiano"),
    "ru": ("russian", "русский"),
    "pl": ("polish", "polski"),
    "tr": ("turkish", "türkçe"),
    "vi": ("vietnamese", "tiếng việt"),
    "th": ("thai", "ภาษาไทย"),
    "ar": ("arabic", "العربية"),
    "hi": ("hindi", "हिन्दी", "हिंदी"),
}
_NAME_TO_CODE = {name: code for code, names in _NAMES.items() for name in names}
_NAME_RE = re.compile(
    r"(?<!\w)(" + "|".join(sorted(map(re.escape, _NAME_TO_CODE), key=len, reverse=True)) + r")(?!\w)",
    re.IGNORECASE,
)
# "reply in X" beats a mere mention ("in Portuguese, never in Spanish").
_DIRECTIVE_RE = re.compile(
    r"\b(?:reply|respond|answer|write|speak|talk|continue)\w*\b[^.\n]{0,30}?\bin\s+(\S+(?:\s\S+)?)",
    re.IGNORECASE,
)
# Bare two-letter codes are ordinary words in English ("it", "id", "de"), so they only count
# in explicit forms.
_CODES = "|".join(LANGUAGES)
_CODE_RE = re.compile(
    rf"(?:\blang(?:uage)?\s*[:=]\s*|\[|\(|\blocale\s*[:=]\s*)({_CODES})\b|\b({_CODES})[-_][A-Z]{{2}}\b",
    re.IGNORECASE,
)

_SCRIPTS: tuple[tuple[str, str], ...] = (
    ("ko", r"[\uac00-\ud7af]"),
    ("ja", r"[\u3040-\u30ff]"),  # kana first: Japanese text also contains kanji
    ("zh", r"[\u4e00-\u9fff]"),
    ("th", r"[\u0e00-\u0e7f]"),
    ("ar", r"[\u0600-\u06ff]"),
    ("hi", r"[\u0900-\u097f]"),
    ("ru", r"[\u0400-\u04ff]"),
)


def detect_language(messages: Sequence[Mapping[str, Any]]) -> str:
    """The ISO code of the language the reply should be written in."""
    for message in messages:
        if message.get("role") in ("system", "developer"):
            named = language_named_in(_text_of(message))
            if named:
                return named
    users = [m for m in messages if m.get("role") == "user"]
    if users:
        guessed = guess_language(_text_of(users[-1]))
        if guessed:
            return guessed
    return DEFAULT_LANGUAGE


def language_named_in(text: str) -> str | None:
    """A language a system prompt asks for, by English/native name or explicit ISO code."""
    for directive in _DIRECTIVE_RE.finditer(text):
        found = _NAME_RE.search(directive.group(1))
        if found:
            return _NAME_TO_CODE[found.group(1).lower()]
    found = _NAME_RE.search(text)
    if found:
        return _NAME_TO_CODE[found.group(1).lower()]
    code = _CODE_RE.search(text)
    if code:
        return (code.group(1) or code.group(2)).lower()
    if text.strip().lower() in LANGUAGES:
        return text.strip().lower()
    return None


def guess_language(text: str) -> str | None:
    """Guess from the script, then from function words of each bank; None when unsure."""
    for code, pattern in _SCRIPTS:
        if re.search(pattern, text):
            return code
    words = re.findall(r"[^\W\d_]+", text.lower())
    if not words:
        return None
    scores: dict[str, int] = {}
    for code, bank in all_banks().items():
        markers = set(bank.markers)
        scores[code] = sum(1 for w in words if w in markers)
    best = max(scores, key=lambda c: scores[c])
    return best if scores[best] > 0 else None


def _text_of(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # OpenAI content parts
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    return ""
