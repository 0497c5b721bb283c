"""Make upstream text (provider tags, reasons, model ids, replies) safe to show.

Everything that came from OpenRouter or a provider is untrusted: a tag or a reason can hold
Markdown that reshapes a job summary (a `|` splits a table cell, `[x](url)` plants a link,
`<img>` is raw HTML), terminal escape sequences that repaint a developer's screen, or
bidirectional overrides that make text read differently from what it is. Two steps, always
in this order: `clean()` (one line, printable, bounded), then `markdown()` for Markdown only.
"""

from __future__ import annotations

import re
import unicodedata

ELLIPSIS = "…"

# Bidi embeddings/overrides/isolates and zero-width characters: invisible, but they reorder or
# hide what a reader sees ("trojan source"). Stripped, like the C0/C1 controls.
_INVISIBLE = dict.fromkeys(
    [*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200B, 0x200C, 0x200D, 0x200E, 0x200F, 0xFEFF]
)

# The ASCII punctuation that starts Markdown or HTML syntax mid-line, GitHub flavour included
# (`|` table cells, `~` strike-through, `:` emoji shortcodes, `@` mentions, `#` issue links,
# `$` math). Line-start syntax (`-`, `1.`, `>`) cannot occur: clean() leaves one line and the
# text never starts a line. CommonMark allows a backslash before any ASCII punctuation.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|#!~&():@$])")


def clean(value: object, limit: int = 160) -> str:
    """One printable line of at most `limit` characters (an ellipsis marks a cut)."""
    text = "" if value is None else str(value)
    text = text.translate(_INVISIBLE)
    # Controls (ESC, CR, NUL, C1...) become spaces, so "a\nb" reads "a b", not "ab".
    text = "".join(" " if unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp") else ch for ch in text)
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[: max(limit - 1, 0)].rstrip() + ELLIPSIS
    return text


def markdown(value: object, limit: int = 160) -> str:
    """`clean()`, then escape every Markdown/HTML metacharacter: safe inside a table cell."""
    return _MD_SPECIAL.sub(r"\\\1", clean(value, limit))
