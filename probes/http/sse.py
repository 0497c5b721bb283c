"""An incremental server-sent-events parser that never trusts its input (the WHATWG rules that matter
for OpenRouter's streams, docs/openrouter-wire.md §3; `:` comments are surfaced so keep-alives count).

Arbitrary bytes never raise anything but SSEError, and only past a size cap. Invalid UTF-8 is decoded
with U+FFFD and flagged on the event, for the caller to decide. At end of input a terminated but
undispatched event is still delivered; an unterminated last line is not (its content is unknown).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.errors import UpstreamError

MAX_LINE_BYTES = 1 << 20   # 1 MiB: real chunks are a few hundred bytes
MAX_EVENT_BYTES = 4 << 20  # all data lines of one event together

_LINE_END = re.compile(rb"\r\n|\r|\n")
_BOM = b"\xef\xbb\xbf"


class SSEError(UpstreamError, ValueError):
    """The stream broke a size cap; the rest of it cannot be parsed safely (a ValueError, as it was)."""


@dataclass(frozen=True, slots=True)
class Comment:
    """A `:` line (keep-alive), text without the colon and one leading space."""

    text: str


@dataclass(frozen=True, slots=True)
class Event:
    """A dispatched event: its data lines joined by newlines."""

    data: str
    event: str | None = None
    valid_utf8: bool = True


Item = Comment | Event


class SSEParser:
    """Feed it bytes as they arrive; it returns the comments and events completed so far."""

    def __init__(self, *, max_line_bytes: int = MAX_LINE_BYTES, max_event_bytes: int = MAX_EVENT_BYTES) -> None:
        self._buf = bytearray()
        self._max_line = max_line_bytes
        self._max_event = max_event_bytes
        self._data: list[str] = []
        self._data_bytes = 0
        self._event: str | None = None
        self._valid = True
        self._skip_lf = False   # the previous read ended in CR: an LF now belongs to that line end
        self._started = False   # BOM is only stripped at the very start of the stream

    def feed(self, chunk: bytes) -> list[Item]:
        out: list[Item] = []
        if not chunk:
            return out
        if self._skip_lf:
            self._skip_lf = False
            if chunk[:1] == b"\n":
                chunk = chunk[1:]
        self._buf += chunk
        if not self._started:
            if len(self._buf) < len(_BOM) and _BOM.startswith(bytes(self._buf)):
                return out  # could still be a BOM: wait for more bytes
            self._started = True
            if self._buf.startswith(_BOM):
                del self._buf[: len(_BOM)]
        pos = 0
        while (m := _LINE_END.search(self._buf, pos)) is not None:
            if m.group() == b"\r" and m.end() == len(self._buf):
                self._skip_lf = True
            self._line(bytes(self._buf[pos : m.start()]), out)
            pos = m.end()
        del self._buf[:pos]
        if len(self._buf) > self._max_line:
            raise SSEError(f"an SSE line grew past {self._max_line} bytes without a line end")
        return out

    def close(self) -> list[Item]:
        """End of input: deliver a terminated event still waiting for its blank line."""
        out: list[Item] = []
        self._buf.clear()
        self._dispatch(out)
        return out

    def _line(self, raw: bytes, out: list[Item]) -> None:
        if not raw:
            self._dispatch(out)
            return
        text, valid = _decode(raw)
        if text.startswith(":"):
            out.append(Comment(_strip_one_space(text[1:])))
            return
        name, sep, value = text.partition(":")
        value = _strip_one_space(value) if sep else ""
        if name == "data":
            self._data_bytes += len(raw)
            if self._data_bytes > self._max_event:
                raise SSEError(f"an SSE event grew past {self._max_event} bytes without a blank line")
            self._data.append(value)
            self._valid = self._valid and valid
        elif name == "event":
            self._event = value
        # `id`, `retry` and unknown fields carry nothing a probe needs; they are ignored.

    def _dispatch(self, out: list[Item]) -> None:
        if self._data:
            out.append(Event("\n".join(self._data), self._event, self._valid))
        self._data, self._data_bytes, self._event, self._valid = [], 0, None, True


def _decode(raw: bytes) -> tuple[str, bool]:
    try:
        return raw.decode("utf-8"), True
    except UnicodeDecodeError:
        return raw.decode("utf-8", errors="replace"), False


def _strip_one_space(value: str) -> str:
    return value[1:] if value.startswith(" ") else value
