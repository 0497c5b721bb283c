"""Serving artifacts anywhere in a reply: undecoded tokens, leaked reasoning, injected placeholders.

Each is a host's corruption (docs/contracts.md, the language row). Byte-level BPE (Llama 3, Qwen,
DeepSeek) spells every byte with a printable stand-in (space `Ġ`, newline `Ċ`, `’` as `âĢĻ`);
SentencePiece spells a space `▁` and unknown bytes `<0x0A>`.
"""

from __future__ import annotations

import re
from enum import StrEnum

from judge.replies.verdict import Verdict, failed

# The printable stand-ins of byte-level BPE: bytes 0-32, 127-160 and 173 map to U+0100-U+0143.
_SHIFTED = [*range(33), *range(127, 161), 173]
_PRINTABLE = [b for b in range(256) if b not in _SHIFTED]
BYTE_OF = {chr(b): b for b in _PRINTABLE} | {chr(256 + i): b for i, b in enumerate(_SHIFTED)}
_STAND_INS = frozenset(chr(256 + i) for i in range(len(_SHIFTED)))
_RUN = re.compile("[" + re.escape("".join(BYTE_OF)) + "]+")
_WHITESPACE_BYTES = frozenset({9, 10, 13, 32})
# A cheap first look: a coded space/tab/newline/CR before a character, or a UTF-8 lead byte's
# stand-in (Â-ô) before a continuation byte's. Text with neither has nothing to decode.
_SUSPECT = re.compile("[\u0109\u010a\u010d\u0120]\\S|[\u00c2-\u00f4][\u0121-\u0143\u00a1-\u00bf]")
# Stand-ins of control bytes are natural letters where they occur (Polish ą ę, Turkish ğ,
# Vietnamese ă đ): a run is cut there, and only its pieces are decoded.
_NATURAL_LETTER = re.compile(
    "[" + "".join(chr(256 + i) for i, b in enumerate(_SHIFTED) if b < 32 and b not in (9, 10, 13) or b == 127) + "]"
)
# A coded space glued between letters ("doorĠcreaked") or a decoded non-ASCII character
# ("âĢĻ" -> "’") never occurs in natural text: two fail a reply. A coded space opening a word
# ("ĠThe Ġdoor") is also how Maltese writes names ("Ġorġ u Ġużeppi"): three pieces in all.
MIN_GLUED_PIECES = 2
MIN_UNDECODED_PIECES = 3
# SentencePiece: a word-joining "▁" between letters, and byte-fallback tokens ("<0x0A>"); no
# natural text writes either twice.
MIN_SENTENCEPIECE_MARKS = 2
_SENTENCEPIECE_SPACE = re.compile(r"(?:(?<=[^\W\d_])|^)▁(?=[^\W\d_])", re.MULTILINE)
_BYTE_FALLBACK = re.compile(r"<0x[0-9A-Fa-f]{2}>")

_REASONING_TAG = re.compile(
    r"</?(?:think|thinking|thought|reasoning|reflection|scratchpad)>|◁/?think▷|\[/?THINK\]"
    r"|<\|(?:begin|end)_of_(?:thought|solution)\|>",
    re.IGNORECASE,
)
# How far into the reply a bare reasoning preamble is looked for: the user named in the third person
# with a request verb, or a plan to write the reply. In-story speech ("Okay, I need to answer the king")
# names neither.
PREAMBLE_CHARS = 400
_USER_REQUEST = re.compile(
    r"\bthe user(?:'s|’s)?\s+(?:(?:just|now|clearly|probably|seems to|has|is)\s+){0,2}"
    r"(?:wants?|wanted|asks?|asked|asking|requests?|requested|requesting|would like|wrote|writes|says|said"
    r"|message|request|prompt|input|is continuing|continues|provided|gave|mentioned)\b"
    r"|用户(?:想|要|让|希望|请求|要求|问|说|发|提到|的(?:请求|要求|问题|消息))",
    re.IGNORECASE,
)
_PLAN = re.compile(
    r"\b(?:I|we)\s+(?:need|have|should|must|will need|'ll need|’ll need)\s+(?:to\s+)?"
    r"(?:\w+\s+){0,3}?(?:respond|reply|answer|write|craft|continue|generate|produce)\b"
    r"[^.!?\n]{0,60}\b(?:roleplay|role-play|role play|in character|the user"
    r"|the scene as|the story as|as the narrator)\b",
    re.IGNORECASE,
)

# Upper-case tokens of an anonymising or filtering layer; a form's `[Your Name]` is a writer's and passes.
_PLACEHOLDER = re.compile(
    r"(?<![A-Za-z])(?:REDACTED|PLACEHOLDER)(?![A-Za-z])|\[(?:DATA )?EXPUNGED\]"
    r"|[<\[{](?:PERSON|NAME|FIRST_NAME|LAST_NAME|EMAIL|EMAIL_ADDRESS|PHONE|PHONE_NUMBER|ADDRESS"
    r"|LOCATION|ORGANIZATION|DATE_TIME|CREDIT_CARD|US_SSN|IP_ADDRESS|PII|MASK|MASKED|REMOVED"
    r"|CENSORED|FILTERED|OMITTED)(?:_\d+)?[>\]}]"
)
# A cheap first look: every placeholder holds one of these.
_PLACEHOLDER_HINT = re.compile(r"REDACTED|PLACEHOLDER|EXPUNGED|[<\[{][A-Z]{2}")
EXCERPT_CHARS = 24


class ArtifactCode(StrEnum):
    """The codes of a serving artifact (judge/replies/verdict.py)."""

    UNDECODED_TOKENS = "undecoded_tokens"
    LEAKED_REASONING = "leaked_reasoning"
    INJECTED_PLACEHOLDER = "injected_placeholder"


def find_artifacts(text: str) -> Verdict | None:
    """The failed verdict of a reply that carries a serving artifact, or None when it carries none."""
    for find, code in ((find_undecoded_tokens, ArtifactCode.UNDECODED_TOKENS),
                       (find_leaked_reasoning, ArtifactCode.LEAKED_REASONING),
                       (find_placeholders, ArtifactCode.INJECTED_PLACEHOLDER)):
        reason = find(text)
        if reason:
            return failed(code, reason)
    return None


def find_undecoded_tokens(text: str) -> str | None:
    """Token strings instead of text: byte-level BPE stand-ins or SentencePiece markers."""
    strong = weak = 0
    first = ""
    runs = _RUN.finditer(text) if _SUSPECT.search(text) else ()  # most replies: nothing to decode
    for run in runs:
        for part in _NATURAL_LETTER.split(run.group()):
            glued, leading = _decoded_pieces(part)
            strong, weak = strong + glued, weak + leading
            first = first or (part if glued or leading else "")
    if strong >= MIN_GLUED_PIECES or strong + weak >= MIN_UNDECODED_PIECES:
        return f"undecoded tokens: {strong + weak} byte-level token pieces, first {first[:EXCERPT_CHARS]!r}"
    if "▁" not in text and "<0x" not in text:
        return None
    marks = _SENTENCEPIECE_SPACE.findall(text) + _BYTE_FALLBACK.findall(text)
    if len(marks) >= MIN_SENTENCEPIECE_MARKS:
        where = text[max(0, text.find(marks[0]) - 8):][:EXCERPT_CHARS]
        return f"undecoded tokens: {len(marks)} SentencePiece markers, first near {where!r}"
    return None


def _decoded_pieces(run: str) -> tuple[int, int]:
    """(glued, leading) pieces of a run: inner coded whitespace and non-ASCII characters glue, an opening "Ġ" leads."""
    if not any(char in _STAND_INS for char in run):
        return 0, 0
    decoded = bytes(BYTE_OF[char] for char in run).decode("utf-8", errors="replace")
    spaces = [i for i, char in enumerate(run) if char in _STAND_INS and BYTE_OF[char] in _WHITESPACE_BYTES]
    leading = 1 if spaces[:1] == [0] else 0
    non_ascii = sum(1 for char in decoded if ord(char) > 127 and char != "\ufffd")
    return len(spaces) - leading + non_ascii, leading


def find_leaked_reasoning(text: str) -> str | None:
    """Reasoning in the answer text: a reasoning tag anywhere, or a bare preamble at the start."""
    tag = _REASONING_TAG.search(text)
    if tag:
        return f"leaked reasoning: {tag.group()!r} in the reply"
    opening = text.lstrip()[:PREAMBLE_CHARS]
    found = _USER_REQUEST.search(opening) or _PLAN.search(opening)
    if found:
        return f"leaked reasoning: the reply opens by reasoning about the request ({found.group()[:40]!r})"
    return None


def find_placeholders(text: str) -> str | None:
    """Upper-case placeholder tokens an anonymising or filtering layer puts in place of words."""
    if not _PLACEHOLDER_HINT.search(text):
        return None
    found = _PLACEHOLDER.findall(text)
    if not found:
        return None
    return f"injected placeholder: {found[0]!r} ({len(found)} in the reply)"
