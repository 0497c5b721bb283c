"""Stray leading garbage: what a corrupting host puts before the real start of a reply.

The real incident: one host glued stray punctuation or unrelated token fragments before 19 of
20 replies. Four shapes are caught, each a named reason:

- **chat-template token** anywhere (`<|im_end|>`, `<｜Assistant｜>`, `<start_of_turn>`, `[INST]`,
  `</s>`): the host's template leaked into the text;
- **leaked role label** on the first line: a role word alone (`assistant`, `model`) or as a
  label (`Assistant:`, `AI:`, `### Response:`). A character's speaker label (`Mara:`) is normal
  roleplay, and so is a character called "Model": only the lowercase `model:` of Gemma's
  template is a leak, and a capitalised role word (`Assistant:`) passes when the reply is a
  script with other speakers' labels; so does an answer word in bold (`**Answer:** 7`), which
  no template writes (`Response:`, `### Response:` are leaks);
- **stray punctuation** before the first letter (`",Hello`, `.**She`, `)The`), after the
  openers a healthy reply may start with (quotes, brackets, Markdown `*`/`**`/`_`, dashes,
  `¿ ¡`, an ellipsis, `#`, `>`), which are never garbage by themselves, and unless it opens
  markup: LaTeX math or a command (`\\(4 + 3 = 7\\).`, `\\[`, `\\begin{`), a Markdown table;
- **a start mid-word**: the first letters of the reply (before any opener) are a piece of a
  word rather than a word. In cased scripts (Latin, Cyrillic) a reply starting with a
  lowercase piece is read against the expected language's word frequencies
  (judge.replies.word_frequency): it fails when the piece is no word, or a string the language uses mostly
  as the ending of longer words (`ing`, `ly`, `tion`, `s`), or a real word glued before a new
  sentence (`her The door`, `on. The`). Uncased and unspaced scripts have no such cue; what is
  caught there is what their writing systems forbid at the start of a word: a Thai following
  vowel (`ะ า ำ`), a Devanagari vowel sign or virama, a small kana, `ー` or `々`, a Korean
  particle or verb ending standing first. A Han character or a Thai consonant cut from the
  middle of a word is itself a valid start, so such fragments are not caught (measured in
  benchmarks/garbage_eval.py).
"""

from __future__ import annotations

import re
import unicodedata
from enum import StrEnum

from judge.replies.verdict import Verdict, failed
from judge.replies.word_frequency import FREQUENT, vocabulary

# Characters that legitimately open a reply or a line of it, before the first letter.
OPENERS = frozenset("\"“”„«»‹›「『《〈【（([{*_—–-¿¡'‘‚…~#>♪")
# Punctuation that never starts a healthy reply, nor directly follows an opener.
_STRAY = frozenset(".,;:!?)]}》」』】）、。，．：；！？|\\/=%@")
# Template and control tokens of common chat formats; never part of a reply.
_TEMPLATE_TOKEN = re.compile(
    r"<\|[^|>\n]{1,40}\|>|<｜[^｜>\n]{1,40}｜>|</s>|<s>(?!.{0,200}</s>)"
    r"|<(?:eos|bos|pad|unk|end_of_turn|start_of_turn|eot_id|im_start|im_end|endoftext)>"
    r"|\[/?INST\]|<</?SYS>>",
    re.IGNORECASE,
)
# Role words of chat templates and chat transcripts; the answer words pass in bold ("**Answer:** 7").
_ANSWER_WORDS = ("response", "answer", "output", "reply")
_ROLE_WORDS = "assistant|model|ai|bot|chatbot|gpt|chatgpt|system|user|human|" + "|".join(_ANSWER_WORDS)
# A role word alone on the first line ("assistant\n", "<assistant>\n") or as a label
# ("Assistant:", "**AI:**", "### Response:").
_ROLE_LINE = re.compile(rf"[<\[]?(?P<role>{_ROLE_WORDS})[>\]]?[ \t]*\n", re.IGNORECASE)
_ROLE_LABEL = re.compile(
    rf"(?P<head>#{{1,6}}[ \t]*)?(?P<bold>\*\*|__)?(?P<role>{_ROLE_WORDS})(?:\*\*|__)?[ \t]*[:：](?:\*\*|__)?",
    re.IGNORECASE,
)
# A speaker label at the start of a line: "Mara:", "**Tomas:**", "老邢：".
_SPEAKER = re.compile(r"^[ \t>*_]*(?P<name>[^\W\d_][\w'’ .-]{0,30}?)(?:\*\*|__)?[ \t]*[:：]", re.MULTILINE)
# A capitalised role word passes as a character's name only next to other speakers' labels...
MIN_SCRIPT_SPEAKERS = 2
# ...except these, which are plausible names on their own: a fashion model, the "System" voice
# of game-style roleplay. Chat templates write them in lowercase ("model", "system").
_CHARACTER_LIKE = frozenset({"model", "system"})
# An ellipsis written with dots is a normal opener ("...Well.", ". . . Silence."), a single dot is
# not; neither is an ellipsis in brackets ("[...]", "(…)"), which marks omitted text.
_DOT_ELLIPSIS = re.compile(r"[\[(](?:\.{3}|…)[\])]|\.(?:[ \t]?\.)+")
# A ">" is a blockquote marker at a line start (or a nested one), part of an arrow after "-"/"=";
# glued after an opener ('">Hoy') it is stray.
_BEFORE_QUOTE_MARK = frozenset(" \t\n>-=")
_URL_START = re.compile(r"(?:https?|ftp)://\S|www\.\S", re.IGNORECASE)
# LaTeX math (its closer may be past a low max_tokens) or a command (`\begin{`), a Markdown table's row over
# its `|---|` delimiter row; a JSON escape (`\nThe`, `\"Hi`) is none.
_MARKUP = re.compile(r"\\[(\[]|\\[A-Za-z]{2,40}(?=[{\[\n])"
                     r"|\|[^\n]{0,2000}\|[^\n]{0,2000}\n[ \t]{0,40}\|?[ \t]{0,40}:?-{1,400}:?[ \t]{0,40}\|")
_MENTION = re.compile(r"@\w")
# Short words that stand alone before punctuation or a name in casual replies ("ok. Fine.",
# "no! Wait", "hey Mara", "oui, bien sûr"): a real word, never a token fragment.
_STANDALONE = frozenset("""
    ok okay oh ah aah eh uh um umm hm hmm mm mhm no yes yeah yep yup nope so well hi hey yo aw
    huh wow lol ha haha heh oops ugh sure fine right wait what why how who now then
    sí si não nao sim oui non ja nein tak nie evet hayır hayir ya iya tidak bueno vale bien claro
    già sì ciao hola olá ola dạ vâng ừ ừm à ô ồ ei eita nossa oi ay ayy ey ну да нет ой ох ага
    thanks thank please sorry alright bye hello yay obrigado obrigada gracias merci danke grazie
    спасибо dzięki dziękuję tamam peki halo hai baik
""".split())
# A lowercase piece this frequent on its own is a function word ("a", "e", "и"), whatever
# share of longer words end with it; "s" (7e-4 in English) and "ing" are not.
FUNCTION_WORD_FREQUENCY = 1e-3
# A lowercase start is a word when at least this share of its frequency is as a word of its
# own rather than as the ending of longer words ("her" 0.4, "ing" < 0.01, "ly" < 0.01).
MIN_WORD_SHARE = 0.2
# An inner capital ("iPhone", "eBay") is a brand's when the word is this frequent in English.
BRAND_FREQUENCY = 1e-5
# A capitalised word this frequent (wordfreq, per word) is a common word starting a sentence,
# not a name: a lowercase word right before it was glued on ("her The door", "on. The").
SENTENCE_START_FREQUENCY = 3e-5
# Uncased scripts (Arabic, Devanagari) have no lowercase cue, so only a clear ending counts: a
# first word at most this long, used this rarely on its own, ending this much of the vocabulary
# ("ها", "ات", "ों", "ता"). Unknown words are not judged: the lists miss many real inflections.
MAX_UNCASED_ENDING_LETTERS = 3
MAX_UNCASED_WORD_SHARE = 0.01
MIN_UNCASED_ENDING_FREQUENCY = 1e-3
# Letters that cannot begin a word in their writing system.
_THAI_NON_INITIAL = frozenset("ะาำๅๆฯ")
_KANA_NON_INITIAL = frozenset("ぁぃぅぇぉっゃゅょゎをァィゥェォッャュョヮヲヵヶーゝゞヽヾ々")
# Korean particles and verb endings that never stand first in a sentence ("와!" is "wow!" and
# "보다" also "more", so neither is listed).
_KOREAN_BOUND = frozenset(
    "은 는 을 를 의 과 에서 에게 께 한테 으로 까지 부터 처럼 습니다 니다 었다 았다 였다 었어요 았어요".split()
)
# What follows a lowercase first word: punctuation (an ellipsis is a pause, not a glue), spaces,
# or the end of the first line.
_AFTER_PIECE = re.compile(
    r"(?P<glue>(?![.…]{2}|…)[.,;:!?)\]\"“”*]+)?(?P<space>[ \t]*)(?P<newline>\n)?"
)
_ELONGATED = re.compile(r"(\w)\1\1")
_FIRST_WORD = re.compile(r"[^\W\d_][\w'’-]*")
# How much of the start the reason quotes.
EXCERPT_CHARS = 20


class LeadingCode(StrEnum):
    """The code of a reply's stray start or chat-template token (judge/replies/verdict.py)."""

    LEADING_GARBAGE = "leading_garbage"


def find_leading_garbage(text: str, expected: str | None = None) -> Verdict | None:
    """The failed verdict of a reply that starts with stray garbage, or None when its start looks healthy.

    `expected` is the reply's language (ISO 639-1); without it, only English word frequencies
    are used to tell a word from a fragment.
    """
    token = find_template_token(text)
    if token:
        return token
    start = text.lstrip()
    if not start or _URL_START.match(start):  # a reply may open with a link: not a fragment
        return None
    reason = _role_label(start) or _stray_punctuation(start) or _mid_word(start, expected or "en")
    return failed(LeadingCode.LEADING_GARBAGE, reason) if reason else None


def find_template_token(text: str) -> Verdict | None:
    """The failed verdict of a reply with a chat-template token anywhere in it, or None."""
    token = _TEMPLATE_TOKEN.search(text)
    return failed(LeadingCode.LEADING_GARBAGE,
                  f"leading garbage: chat-template token {token.group()!r} in the reply") if token else None


def _role_label(start: str) -> str | None:
    line = _ROLE_LINE.match(start)
    if line and (line.group("role").islower() or line.group().startswith(("<", "["))):
        return f"leading garbage: a leaked role label {line.group().strip()!r} opens the reply"
    label = _ROLE_LABEL.match(start)
    if not label:
        return None
    role = label.group("role")
    character_like = role.casefold() in _CHARACTER_LIKE or _is_script(start)
    own_label = label.group("bold") and role.casefold() in _ANSWER_WORDS  # "**Answer:** 7", not "### Response:"
    if not label.group("head") and (own_label or not role.islower() and character_like):
        return None  # the model's own bold label, a character called "Model", or one speaker of a script
    return f"leading garbage: a leaked role label {label.group().strip()!r} opens the reply"


def _is_script(text: str) -> bool:
    names = {match.group("name").strip().casefold() for match in _SPEAKER.finditer(text)}
    return len(names) >= MIN_SCRIPT_SPEAKERS


def _stray_punctuation(start: str) -> str | None:
    position = 0
    while position < len(start):
        skip = _DOT_ELLIPSIS.match(start, position)
        if skip:
            position = skip.end()
        elif start[position] == ">" and position and start[position - 1] not in _BEFORE_QUOTE_MARK:
            return f"leading garbage: stray punctuation at the start: {_head(start)}"
        elif start[position] in OPENERS or start[position].isspace():
            position += 1
        else:
            break
    if position >= len(start) or _MENTION.match(start, position) or _MARKUP.match(start, position):
        return None
    if _is_stray(start[position]):
        return f"leading garbage: stray punctuation at the start: {_head(start)}"
    return None


def _is_stray(char: str) -> bool:
    if char in _STRAY:
        return True
    category = unicodedata.category(char)
    # Closing punctuation or a lone combining mark (a Devanagari vowel sign too) cannot begin text.
    return category in ("Pe", "Pf", "Mn", "Mc", "Me") and char not in OPENERS


def _mid_word(start: str, expected: str) -> str | None:
    piece = _first_letters(start)
    if not piece:
        return None
    first = piece[0]
    if first.lower() == first.upper():
        return _uncased_mid_word(start, piece, expected)
    if first.isupper():
        return None  # a sentence start or a name
    language = _language_of(piece, expected)
    if piece.casefold() in _STANDALONE or _ELONGATED.search(piece):
        return None  # "ok, then", "nooooo, wait", "ahhh": expressive, never a token fragment
    glued = next((i for i in range(1, len(piece)) if piece[i].isupper()), 0)
    if glued and not _is_brand(piece):  # "oLa promesa", "ingThe": not a brand like "iPhone"
        return f"leading garbage: a word piece {piece[:glued]!r} glued to the reply's first word: {_head(start)}"
    if not _is_word(piece, language) and not _is_word(piece, "en"):
        return f"leading garbage: the reply starts mid-word with {piece!r}: {_head(start)}"
    return _glued_before_sentence(start, piece, language)


def _glued_before_sentence(start: str, piece: str, language: str) -> str | None:
    """A real lowercase word standing before the reply's first sentence ("her. The", "on\nThe")."""
    follow = _AFTER_PIECE.match(start, len(piece))
    if follow is None:
        return None
    rest = start[follow.end():]
    if follow.group("glue") and not rest[:1].islower() or follow.group("newline"):
        return f"leading garbage: a word piece {piece!r} glued before the reply's first sentence: {_head(start)}"
    following = _FIRST_WORD.match(rest)
    if not follow.group("space") or following is None:
        return None
    word = following.group()
    if len(word) < 2 or not word[0].isupper() or word.isupper():
        return None  # "and I said", "ok OK": not a sentence start
    words = vocabulary(language, FREQUENT)
    if words is None or words.word_frequency(word) < SENTENCE_START_FREQUENCY:
        return None  # a name ("e Maria disse"), not a sentence start
    return f"leading garbage: a word piece {piece!r} glued before the reply's first sentence: {_head(start)}"


def _uncased_mid_word(start: str, piece: str, expected: str) -> str | None:
    first = piece[0]
    if start.startswith("ーー"):
        return None  # written online for the dash "――" that opens a line of a Japanese story
    if first in _THAI_NON_INITIAL or first in _KANA_NON_INITIAL:
        return f"leading garbage: the reply starts mid-word with {first!r}: {_head(start)}"
    word = re.match(r"\S+?(?=[\s.,!?…\"“”'’)]|$)", start)
    if word and word.group() in _KOREAN_BOUND:
        return f"leading garbage: the reply starts with the ending {word.group()!r}: {_head(start)}"
    words = vocabulary(expected, FREQUENT) if expected in ("ar", "hi") else None
    if words is not None and len(piece) <= MAX_UNCASED_ENDING_LETTERS:
        ending = words.ending_frequency(piece)
        alone = words.word_frequency(piece)
        if ending >= MIN_UNCASED_ENDING_FREQUENCY and alone <= MAX_UNCASED_WORD_SHARE * (alone + ending):
            return f"leading garbage: the reply starts with the word ending {piece!r}: {_head(start)}"
    return None


def _first_letters(start: str) -> str:
    """The letters (with their combining marks) at the very start, in one script."""
    end = 0
    while end < len(start) and (start[end].isalpha() or unicodedata.category(start[end]).startswith("M")):
        if end and start[end].isalpha() and _script(start[end]) != _script(start[0]):
            break
        end += 1
    return start[:end]


def _script(char: str) -> str:
    name = unicodedata.name(char, "")
    return name.split(" ", 1)[0]


def _language_of(piece: str, expected: str) -> str:
    """Whose word list judges a piece: the expected language's when the scripts agree."""
    script = _script(piece[0])
    if script == "LATIN":
        return "en" if expected in _NON_LATIN else expected
    return "ru" if script == "CYRILLIC" else expected


def _is_brand(piece: str) -> bool:
    english = vocabulary("en", FREQUENT)
    return english is not None and english.word_frequency(piece) >= BRAND_FREQUENCY


def _is_word(piece: str, language: str) -> bool:
    words = vocabulary(language)
    if words is not None and words.word_frequency(piece) >= FUNCTION_WORD_FREQUENCY:
        return True
    return _word_share(piece, language) >= MIN_WORD_SHARE


def _word_share(piece: str, language: str) -> float:
    words = vocabulary(language)
    if words is None:
        return 1.0  # no list: never judged a fragment
    alone = words.word_frequency(piece)
    total = alone + words.ending_frequency(piece)
    return alone / total if total else 0.0


_NON_LATIN = frozenset({"ko", "ja", "zh", "ru", "th", "ar", "hi"})


def _head(text: str) -> str:
    return repr(text[:EXCERPT_CHARS])
