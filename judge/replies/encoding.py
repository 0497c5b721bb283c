"""Encoding corruption: mojibake (ftfy's `is_bad`), the U+FFFD replacement character, control characters.

Why `is_bad` and not `fix_text(t) != t`, and what it misses: docs/design-notes.md §2.2.
"""

from __future__ import annotations

import re
from enum import StrEnum

from ftfy.badness import is_bad

from judge.replies.verdict import Verdict, failed

# A common chat emoticon in pt/es ("¬¬") that is_bad mistakes for mojibake.
_ALLOWED_LOOKALIKES = re.compile(r"¬{2,}")
# C0 and C1 control characters, except the whitespace a reply legitimately contains.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
REPLACEMENT_CHARACTER = "\ufffd"
# How much text around a finding the reason quotes.
EXCERPT_CHARS = 24


class EncodingCode(StrEnum):
    """The codes of a corrupted encoding (judge/replies/verdict.py)."""

    REPLACEMENT_CHAR = "replacement_char"
    CONTROL_CHARACTER = "control_character"
    MOJIBAKE = "mojibake"


def find_corruption(text: str) -> Verdict | None:
    """The failed verdict of a visibly corrupted text, or None when its encoding looks healthy."""
    position = text.find(REPLACEMENT_CHARACTER)
    if position >= 0:
        count = text.count(REPLACEMENT_CHARACTER)
        where = _excerpt(text, position)
        return failed(EncodingCode.REPLACEMENT_CHAR,
                      f"encoding: {count} U+FFFD replacement character(s), first near {where}")
    control = _CONTROL.search(text)
    if control:
        code = f"U+{ord(control.group()):04X}"
        return failed(EncodingCode.CONTROL_CHARACTER,
                      f"encoding: control character {code} near {_excerpt(text, control.start())}")
    for line in text.splitlines():
        if is_bad(_ALLOWED_LOOKALIKES.sub(" ", line)):
            where = _excerpt(line, 0)
            return failed(EncodingCode.MOJIBAKE, f"encoding: mojibake (UTF-8 decoded as a legacy code page) in {where}")
    return None


def _excerpt(text: str, position: int) -> str:
    start = max(0, position - EXCERPT_CHARS // 2)
    snippet = text[start:start + EXCERPT_CHARS]
    return repr(snippet)
