"""Find and mask the API key in text: the whole key, any piece of it, and its usual encodings.

What is masked and why (a host may echo our header, upstream text is cut, a hostile host hides the
key with invisible characters or escapes) is told in docs/developing.md, Secrets and untrusted data:
any run of `MIN_RUN` (16) consecutive characters of the key, in any case, reversed, in hex or base64
(all three alignments), looked for in the text and in a normalised copy of it (`_Copy`) and mapped
back. Sixteen characters of a random key are 64 bits or more: never met by chance in a reply. A key
shorter than 16 characters is masked whole. Pure: `KeyMask(key)` is built once per key (`mask_for`).
"""

from __future__ import annotations

import base64
import bisect
import functools
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from core.untrusted import INVISIBLE

MASK = "***"
MIN_RUN = 16   # consecutive key characters that are a piece of the key

# ASCII letters only: length-preserving (str.lower is not, for a few non-ASCII letters), so a
# span found in the folded text is the same span in the text itself.
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")

# What the normalised copy drops (invisible characters; controls but tab, newline and carriage
# return) and what it decodes (an escape, however many backslashes lead it; a percent-encoded byte).
_DROPPED = f"{INVISIBLE}\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"
_HIDDEN = re.compile(rf"\\+(?:x[0-9a-fA-F]{{2}}|u[0-9a-fA-F]{{4}}|U[0-9a-fA-F]{{8}})|%[0-9a-fA-F]{{2}}|[{_DROPPED}]")
_IS_DROPPED = re.compile(f"[{_DROPPED}]")
_ASCII_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")   # the dropped characters ASCII has


@dataclass(frozen=True, slots=True)
class _Form:
    """One way the key can appear: its characters (folded when case does not matter) and the run
    of them that counts as a piece."""

    text: str
    run: int
    case_blind: bool


def _forms(key: str, min_run: int) -> list[_Form]:
    run = min(min_run, len(key))
    raw = key.encode("utf-8")
    folded = key.translate(_ASCII_LOWER)
    forms = [_Form(folded, run, True), _Form(folded[::-1], run, True), _Form(raw.hex(), 2 * run, True)]
    b64_run = math.ceil(run * 4 / 3)
    for shift in range(3):
        tail = raw[shift:]
        whole = tail[: len(tail) // 3 * 3]   # full groups only: a partial one depends on what follows
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            text = encode(whole).decode("ascii")
            if len(text) >= b64_run:
                forms.append(_Form(text, b64_run, False))
    return list({f: None for f in forms})   # standard and URL-safe agree on most keys: once each


class _Copy:
    """A normalised copy of a text (what a reader takes it to say: invisible and control characters
    dropped, escapes decoded) and the way back: `original` maps a span of the copy to the text's.
    The map is built only when a run is found in the copy (almost never: the copy costs one pass)."""

    __slots__ = ("_at", "_decoded", "_shift", "_source", "text")

    def __init__(self, text: str) -> None:
        plain = text.isascii() and "\\" not in text and "%" not in text and not _ASCII_CONTROL.search(text)
        self._source, self.text = text, text if plain else _HIDDEN.sub(lambda found: _reading(found.group()), text)
        self._at: list[int] = []           # where in the copy each edit is
        self._shift = [0]                  # the text's offset minus the copy's, after each edit
        self._decoded: dict[int, tuple[int, int]] = {}   # a decoded character's span in the text

    def original(self, start: int, end: int) -> tuple[int, int]:
        """The span of the text that the copy's `start:end` was made from (hidden characters inside it included)."""
        if len(self._shift) == 1:
            self._map()
        first, final = self._decoded.get(start), self._decoded.get(end - 1)
        return (first[0] if first else start + self._shift[bisect.bisect_right(self._at, start)],
                final[1] if final else end + self._shift[bisect.bisect_right(self._at, end - 1)])

    def _map(self) -> None:
        size = last = 0
        for found in _HIDDEN.finditer(self._source):
            token = found.group()
            char = _reading(token)
            if char == token:
                continue
            size += found.start() - last
            self._at.append(size)
            self._shift.append(self._shift[-1] + len(token) - len(char))
            if char:
                self._decoded[size] = found.span()
                size += 1
            last = found.end()


@functools.lru_cache(maxsize=4096)
def _reading(token: str) -> str:
    """What a match of _HIDDEN reads as: "" (an invisible or control character; a byte of a character
    outside ASCII, which no key holds), the character an escape stands for, or the token itself."""
    if len(token) == 1:
        return ""
    code = int(token.lstrip("\\")[1:], 16)
    if token[0] == "%" and code >= 0x80:
        return ""
    if code > 0x10FFFF:
        return token
    return "" if _IS_DROPPED.match(chr(code)) else chr(code)


class _Index:
    """Every form's windows of `step` characters.

    Runs are found in linear time: every `step`-th window of the text, folded to lower case, is
    looked up here (a run of 2 x step characters or more of any form covers one such window whole,
    wherever it starts), and each hit is extended both ways as far as its form goes on: in the
    folded text for the key and its hex, in the text itself for base64 (case matters there).
    Prose never hits: the cost is one slice and one look-up per 8 characters."""

    def __init__(self, forms: Sequence[_Form], step: int) -> None:
        self.step = step
        self.forms = [(f.text, f.run, f.case_blind) for f in forms]
        self.windows: dict[str, list[tuple[int, int]]] = {}
        for n, (form, _, _) in enumerate(self.forms):
            for k in range(len(form) - step + 1):
                self.windows.setdefault(form[k: k + step].translate(_ASCII_LOWER), []).append((n, k))

    def spans(self, text: str, folded: str) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        at, step, windows, last = 0, self.step, self.windows, len(text) - self.step
        while at <= last:
            hits = windows.get(folded[at: at + step])
            if hits is not None:
                found = [span for n, k in hits if (span := self._extend(text, folded, at, n, k)) is not None]
                if found:
                    out += found
                    at = max(end for _, end in found)
                    continue
            at += step
        return out

    def _extend(self, text: str, folded: str, at: int, n: int, k: int) -> tuple[int, int] | None:
        form, run, case_blind = self.forms[n]
        seen = folded if case_blind else text
        if seen[at: at + self.step] != form[k: k + self.step]:
            return None   # a base64 window that matches only once folded
        start, i = at, k
        while start > 0 and i > 0 and seen[start - 1] == form[i - 1]:
            start, i = start - 1, i - 1
        end, j = at + self.step, k + self.step
        while end < len(seen) and j < len(form) and seen[end] == form[j]:
            end, j = end + 1, j + 1
        return (start, end) if end - start >= run else None


class KeyMask:
    """Masks one key (and its pieces and encodings) in text and in bytes. `KeyMask(None)` masks nothing."""

    def __init__(self, key: str | None, *, min_run: int = MIN_RUN, mask: str = MASK) -> None:
        self.mask = mask
        forms = _forms(key, min_run) if key else []
        step = max(min(f.run for f in forms) // 2, 1) if forms else 1
        self.reach = max((len(f.text) for f in forms), default=0)   # the longest form, in characters
        self._index = _Index(forms, step) if forms else None

    def __bool__(self) -> bool:
        return self._index is not None

    def spans(self, text: str) -> list[tuple[int, int]]:
        """The key's runs in `text` and in its normalised copy, merged, in order (start, end). The text
        is searched too: a decoded escape may have taken key characters with it (`%e4` before `002a...`)."""
        if self._index is None:
            return []
        copy, spans = _Copy(text), self._index.spans(text, text.translate(_ASCII_LOWER))
        if copy.text is not text:
            spans += [copy.original(*span) for span in self._index.spans(copy.text, copy.text.translate(_ASCII_LOWER))]
        return _merged(spans)

    def __call__(self, text: str) -> str:
        """`text` with every run of the key (and of its encodings) replaced by the mask."""
        spans = self.spans(text)
        if not spans:
            return text
        pieces, at = [], 0
        for start, end in spans:
            pieces += [text[at:start], self.mask]
            at = end
        return "".join([*pieces, text[at:]])

    def head(self, text: str, limit: int) -> str:
        """The first `limit` characters of `text` masked *before* the cut (only as far as a key
        crossing the cut could reach is looked at: a 4 MiB event is not masked whole to quote 120)."""
        return self(text[: limit + self.reach])[:limit]

    def found(self, text: str) -> bool:
        return bool(self.spans(text))

    def in_bytes(self, data: bytes) -> bytes:
        """`data` with the key's runs masked (a file: JSON, XML, HTML, an attachment, whatever it holds).
        Bytes that are not UTF-8 stay as they are (surrogateescape): only the runs change."""
        if self._index is None:
            return data
        text = data.decode("utf-8", "surrogateescape")
        masked = self(text)
        return data if masked is text else masked.encode("utf-8", "surrogateescape")

    def parts(self, parts: Sequence[str]) -> tuple[str, ...]:
        """Fragments (stream deltas, a tool name's pieces) masked as one joined text, each fragment
        kept where it was: a key split over fragments is found although no fragment holds 16 of it.
        A masked run's mask goes into the fragment it starts in; the rest of the run is dropped."""
        joined = "".join(parts)
        spans = self.spans(joined)
        if not spans:
            return tuple(parts)
        out, offset = [], 0
        for part in parts:
            lo, hi = offset, offset + len(part)
            kept, at = [], lo
            for start, end in spans:
                if end <= lo or start >= hi:
                    continue
                kept.append(joined[at:max(start, lo)])
                if start >= lo:
                    kept.append(self.mask)
                at = min(end, hi)
            kept.append(joined[at:hi])
            out.append("".join(kept))
            offset = hi
        return tuple(out)

    def json(self, value: Any) -> Any:
        """A decoded JSON value with every string in it (keys too) masked: the key may arrive
        escaped (`\\u0073k-...`), so masking the raw text before decoding is not enough."""
        if isinstance(value, str):
            return self(value)
        if isinstance(value, list):
            return [self.json(v) for v in value]
        if isinstance(value, dict):
            return {self(k) if isinstance(k, str) else k: self.json(v) for k, v in value.items()}
        return value


def _merged(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(end, out[-1][1]))
        else:
            out.append((start, end))
    return out


@functools.lru_cache(maxsize=8)
def mask_for(key: str | None, mask: str = MASK) -> KeyMask:
    """The KeyMask of `key`, built once (a regular expression per form)."""
    return KeyMask(key, mask=mask)
