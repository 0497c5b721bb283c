"""Make upstream text (provider tags, reasons, model ids, replies) safe to show.

Everything that came from OpenRouter or a provider is untrusted: a tag or a reason can hold
Markdown that reshapes a job summary (a `|` splits a table cell, `[x](url)` plants a link,
`<img>` is raw HTML), terminal escape sequences that repaint a developer's screen, or
bidirectional overrides that make text read differently from what it is. Two steps, always
in this order: `clean()` (one line, printable, bounded, every invisible character shown as its
escape and never deleted: deleting it would join what it separated), then `markdown()` for
Markdown only.

Reading upstream data has its own two traps, handled here for every layer: JSON nested deep
enough to crash Python's parser (`load_json` refuses it as not JSON) and UTF-16 surrogate
halves split across chunks (`pair_surrogates` pairs them up).
"""

from __future__ import annotations

import itertools
import json
import re
import unicodedata
from typing import Any

from core.errors import InputError

ELLIPSIS = "…"

# The characters a reader does not see (a regular expression class): Unicode's format characters
# (category Cf: zero-width space and joiners, the soft hyphen, bidi controls, tags) and its other
# default-ignorable ones (variation selectors, Hangul fillers). They reorder or hide what a reader
# sees ("trojan source"), and between a key's characters they hide it from a masker
# (core/key_mask.py looks for the key in a copy without them).
INVISIBLE = ("\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160\u17b4\u17b5"
             "\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb"
             "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
             "\U000e0000-\U000e0fff")
_INVISIBLE = re.compile(f"[{INVISIBLE}]")

# The ASCII punctuation that starts Markdown or HTML syntax mid-line, GitHub flavour included
# (`|` table cells, `~` strike-through, `:` emoji shortcodes, `@` mentions, `#` issue links,
# `$` math). Line-start syntax (`-`, `1.`, `>`) cannot occur: clean() leaves one line and the
# text never starts a line. CommonMark allows a backslash before any ASCII punctuation.
MARKDOWN_SPECIAL = r"[\\`*_\[\]<>|#!~&():@$]"
_MD_SPECIAL = re.compile(f"({MARKDOWN_SPECIAL})")


def clean(value: object, limit: int = 160) -> str:
    """One printable line of at most `limit` characters (an ellipsis marks a cut); an invisible
    character reads as its escape (`a\\u200bb`), a control as a space."""
    text = "" if value is None else str(value)
    # An invisible character is shown escaped (`\\u200b`), never deleted: deleting it would join
    # what it separated (a key a masker did not recognise, interleaved with zero-width spaces).
    text = _INVISIBLE.sub(lambda found: ascii(found.group())[1:-1], text)
    # Controls (ESC, CR, NUL, C1...) become spaces, so "a\nb" reads "a b", not "ab".
    text = "".join(" " if unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp") else ch for ch in text)
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[: max(limit - 1, 0)].rstrip() + ELLIPSIS
    return text


def markdown(value: object, limit: int = 160) -> str:
    """`clean()`, then escape every Markdown/HTML metacharacter: safe inside a table cell."""
    return _MD_SPECIAL.sub(r"\\\1", clean(value, limit))


# Deeper than any reply, chunk or schema the probes handle (OpenRouter chunks nest ~6 levels), and
# far below the depth at which Python's json raises RecursionError (~1000): deeper input is
# "not JSON", so a hostile host gets a verdict instead of a crash in the parser.
MAX_JSON_DEPTH = 64
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)   # a complete JSON string, escapes included
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_BRACKET_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
_SURROGATE = re.compile("[\ud800-\udfff]")


class TooDeep(InputError):
    """JSON nested deeper than MAX_JSON_DEPTH: refused before the parser recurses (a ValueError, as before)."""


def json_depth(text: str) -> int:
    """The deepest `[`/`{` nesting of `text`, brackets inside strings not counted.

    The strings go first (one regex pass; an unterminated one runs to the end), then everything
    but the brackets, and the running depth is summed in C (itertools.accumulate): a 74 KB event of
    tool-call fragments costs ~8 ms here, where a Python loop over every bracket and quote took ~35
    (and a 4 MiB one seconds, the event loop held all that time)."""
    outside = _JSON_STRING.sub("", text).split('"', 1)[0]
    brackets = _NOT_BRACKET.sub("", outside)
    return max(0, max(itertools.accumulate(map(_BRACKET_STEP.__getitem__, brackets)), default=0))


def load_json(raw: str | bytes, **options: Any) -> Any:
    """`json.loads` for upstream data: ValueError (TooDeep) instead of RecursionError on deep nesting.

    Bytes must be UTF-8 (UnicodeDecodeError is a ValueError too); `options` go to json.loads.
    """
    text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    if text.count("[") + text.count("{") > MAX_JSON_DEPTH and json_depth(text) > MAX_JSON_DEPTH:
        raise TooDeep(f"nested deeper than {MAX_JSON_DEPTH} levels")
    try:
        return json.loads(text, **options)
    except RecursionError:  # unreachable after the depth check; kept so no parser crash escapes
        raise TooDeep(f"nested deeper than {MAX_JSON_DEPTH} levels") from None


def pair_surrogates(text: str) -> str:
    """Text joined from chunks with UTF-16 surrogate halves paired up ("\\ud83d" + "\\ude00" is one
    emoji); a lone half becomes U+FFFD. Python does not pair them itself, and an unpaired half
    cannot be encoded as UTF-8, so every later step (judges, files) would fail on it."""
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
