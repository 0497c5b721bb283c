"""Stray leading garbage: punctuation or token fragments glued before the real start of a reply.

A healthy reply begins with a letter or digit, an opener (quote marks, brackets, Markdown
emphasis `*`/`**`/`_`, a dash, `¿ ¡`, an ellipsis) or a symbol such as an emoji. The real
incident put stray punctuation (`",Hello`, `.**She`, `)The`), a word fragment glued to
punctuation (`ing. The door`) or a chat-template token (`</s>`, `<|im_end|>`) before that.
"""

from __future__ import annotations

import re
import unicodedata

# Characters that legitimately open a reply or a line of it, before the first letter.
OPENERS = frozenset("\"“”„«»‹›「『《〈【（([{*_—–-¿¡'‘‚…~#>♪")
# Punctuation that never starts a healthy reply, nor directly follows an opener.
_STRAY = frozenset(".,;:!?)]}》」』】）、。，．：；！？|\\/=%@")
# Template and control tokens of common chat formats; never part of a reply.
_TEMPLATE_TOKEN = re.compile(
    r"<\|[^|>\n]{1,40}\|>|</?s>|<(?:eos|bos|pad|unk|end_of_turn|start_of_turn|eot_id)>|\[/?INST\]",
    re.IGNORECASE,
)
# A lowercase Latin word piece glued to punctuation, then anything but lowercase Latin text:
# "ing. The", "s,Hello", "ed.\"그녀는", "ing. ¡Claro". ("ok, then", "hmm... Okay", "well... fine"
# pass: a lowercase start followed by lowercase text or an ellipsis is casual chat, not garbage.)
_FRAGMENT = re.compile(
    r"[a-zß-öø-ÿ]{1,12}(?:[.;:)\]](?!\.)\s*|[,!?\"“*]+)(?=\S)(?![.…\s]*[a-zß-öø-ÿ])"
)
# Short words that stand alone before punctuation in casual replies ("ok. Fine.", "no! Wait",
# "oui, bien sûr"): a real word, not a fragment of one. Token fragments ("ing", "s", "ed", "ly")
# are never among them.
_STANDALONE = frozenset("""
    ok okay oh ah aah eh uh um umm hm hmm mm mhm no yes yeah yep yup nope so well hi hey yo aw
    huh wow lol ha haha heh oops ugh sure fine right wait what why how who now then yes
    sí si não nao sim oui non ja nein tak nie evet hayır hayir ya iya tidak bueno vale bien claro
    già sì ciao hola olá ola dạ vâng ừ ừm à ô ồ ei eita nossa oi ay ayy ey
""".split())
# An ellipsis written with dots is a normal opener ("...Well.", ". . . Silence."), a single dot is not.
_DOT_ELLIPSIS = re.compile(r"\.(?:[ \t]?\.)+")
_URL_START = re.compile(r"(?:https?|ftp)://\S|www\.\S", re.IGNORECASE)
# How much of the start the reason quotes.
EXCERPT_CHARS = 20


def find_leading_garbage(text: str) -> str | None:
    """The reason the reply starts with stray garbage, or None when its start looks healthy."""
    token = _TEMPLATE_TOKEN.search(text)
    if token:
        return f"leading garbage: chat-template token {token.group()!r} in the reply"
    start = text.lstrip()
    if not start:
        return None
    if _URL_START.match(start):  # a reply may open with a link ("https://..."): not a fragment
        return None
    fragment = _FRAGMENT.match(start)
    if fragment and _word_of(fragment.group()) not in _STANDALONE:
        return f"leading garbage: a word fragment glued to punctuation at the start: {_head(start)}"
    position = 0
    while position < len(start) and (start[position] in OPENERS or start[position].isspace()):
        position += 1
    ellipsis = _DOT_ELLIPSIS.match(start, position)
    if ellipsis:
        position = ellipsis.end()
    if position < len(start) and _is_stray(start[position]):
        return f"leading garbage: stray punctuation at the start: {_head(start)}"
    return None


def _is_stray(char: str) -> bool:
    if char in _STRAY:
        return True
    category = unicodedata.category(char)
    # Closing punctuation or a lone combining mark cannot begin text.
    return category in ("Pe", "Pf", "Mn", "Me") and char not in OPENERS


def _word_of(match: str) -> str:
    return re.match(r"[^\W\d_]*", match).group().lower()  # type: ignore[union-attr]


def _head(text: str) -> str:
    return repr(text[:EXCERPT_CHARS])
