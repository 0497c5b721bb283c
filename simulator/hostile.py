"""Hostile hosts: replies built to break the client that reads them, not to look degraded.

A degraded host (simulator/faults.py) sends a plausible reply with a defect a judge should see.
A hostile one attacks the reader: it echoes our request headers (the API key) back, nests its
JSON a thousand levels deep, splits an emoji's UTF-16 surrogate halves across two chunks, or
sends one 64 K-character word. These faults ignore `max_tokens`, as a hostile server would.

| fault | parameters (defaults) | what the client sees |
|---|---|---|
| `echo_headers` | `into` text/provider (text) | our request headers, `Authorization` included, echoed back (below) |
| `deep_json` | `depth` (1000), `into` content/chunk (content) | JSON nested `depth` levels deep (below) |
| `split_surrogates` | `lone` (false) | emoji in the reply, `\\ud83d` in one chunk and `\\ude00` in the next (below) |
| `no_space` | `chars` (65536) | one word of `chars` letters, no space, in pieces of 4 K |
| `escape_codes` | — | an error event that clears the screen, retitles the terminal, links (OSC 8), reverses text |
| `echo_at_cut` | `into` error, event, category, header, tool_name, text_cap | the key where the reader cuts (below) |

Where the table says (below):
- `echo_headers` into text: the request's headers, `Authorization` included, before the reply;
  into provider: the key as every chunk's `provider`.
- `deep_json` into content: the reply is `[` x depth then `]` x depth; into chunk: every data
  event carries such a field.
- `split_surrogates` with lone: one unpaired half too.
- `echo_at_cut` puts `Authorization: Bearer <key>` where the reader cuts upstream text, so a cut
  made before the key is masked keeps all of it but one character (ECHO_CUTS: the client's cuts):
  into error, the stream's only event is an error whose ~300-character message ends inside the
  key; into event, a data event that is not JSON, quoted to 120 characters; into category, a
  moderation 403 whose first category (cut at 40) is the key; into header, an X-Provider-Name
  that disagrees with the body (its note is cut at 60); into tool_name, a tools request's first
  call named by the key in 10-character name fragments (no fragment holds 16 of it: only the
  joined name shows it); into text_cap, the key across the probe's 64 K text cap.

`apply` rewrites a Plan (pure); `dumps` serialises one chunk or body the way the plan needs.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # replies.py applies these faults, so it is imported there, not here
    from simulator.replies import Plan

FAULTS = frozenset({"echo_headers", "deep_json", "split_surrogates", "no_space", "echo_at_cut", "escape_codes"})
# Clear screen, a terminal title, an OSC 8 hyperlink, a bidi override, a bell: what a raw log would obey.
ESCAPES = ("\x1b[2J\x1b[H", "\x1b]0;canary: all hosts healthy\x07", "\x1b]8;;https://attacker.invalid/\x1b\\here\x1b]8;;\x1b\\",
           "\u202egnissap\u202c", "\x07")
ECHO_INTO = ("error", "event", "category", "header", "tool_name", "text_cap")
# Where the client cuts upstream text (probes/http/: describe_error, StreamState's quote of a bad
# event, wire.FLAGGED_CHARS, the X-Provider-Name note, the tool-name excerpt, MAX_TEXT_CHARS).
ECHO_CUTS = {"error": 300, "event": 120, "category": 40, "header": 60, "text_cap": 64 * 1024}
NAME_FRAGMENT_CHARS = 10
EMOJI = "\U0001f600"              # 😀: outside the BMP, two UTF-16 halves in a JSON escape
LONE_HALF = "\ud83d"              # a high surrogate with no low one after it
NO_SPACE_PIECE_CHARS = 4096       # a long word still streams in a few chunks, not 16 K of them


def apply(plan: Plan, name: str, params: Mapping[str, Any], headers: Mapping[str, str]) -> Plan:
    """`plan` as the hostile fault `name` sends it (after max_tokens: hostile hosts ignore it)."""
    if name == "echo_headers":
        if params["into"] == "provider":
            key = headers.get("Authorization", "").partition(" ")[2] or "no-key"
            return dataclasses.replace(plan, served=dataclasses.replace(plan.served, provider_name=key))
        echoed = "; ".join(f"{k}: {v}" for k, v in headers.items())
        return _text(plan, f"Your request headers: {echoed}\n\n{plan.text}")
    if name == "deep_json":
        depth = params["depth"]
        if params["into"] == "chunk":
            return dataclasses.replace(plan, deep_field=depth)
        return _text(plan, "[" * depth + "]" * depth)
    if name == "split_surrogates":
        sentences = plan.text.split(". ")
        text = f" {EMOJI}. ".join(sentences) + f" {EMOJI}"
        chunks = split_halves(text)
        if params["lone"]:
            chunks.append(LONE_HALF)
        return dataclasses.replace(_text(plan, "".join(chunks)), chunks=tuple(chunks))
    if name == "escape_codes":
        from simulator.replies import StreamError  # replies imports this module: no cycle at import time

        message = "Provider returned error " + " ".join(ESCAPES) + " (escaped)"
        error = StreamError(0, "in_band", 502, message, "provider_unavailable")
        return dataclasses.replace(plan, text="", finish_reason=None, native_finish_reason=None, error=error,
                                   tool_calls=())
    if name == "echo_at_cut":
        return _echo_at_cut(plan, params["into"], key_of(headers))
    if name == "no_space":
        text = ("Lorem" * (params["chars"] // 5 + 1))[: params["chars"]]
        pieces = tuple(text[i : i + NO_SPACE_PIECE_CHARS] for i in range(0, len(text), NO_SPACE_PIECE_CHARS))
        return dataclasses.replace(_text(plan, text), chunks=pieces)
    raise ValueError(f"{name}: not a hostile fault")


def key_of(headers: Mapping[str, str]) -> str:
    """The key our request sent (what a header-echoing host gives back)."""
    return headers.get("Authorization", "").partition(" ")[2] or "no-key"


def echo_cut_at(key: str, cut: int, lead: str = "") -> str:
    """`lead` + "Authorization: Bearer <key>" padded so that the first `cut` characters end one
    character before the key does (the most of it a cut can keep)."""
    header = f"Authorization: Bearer {key}"
    pad = max(cut - len(lead) - len(header) + 1, 0)
    return f"{lead}{'.' * pad}{header} (your request headers, echoed)"


def echoed_categories(headers: Mapping[str, str]) -> tuple[str, ...]:
    """`echo_at_cut` into category: moderation categories whose first is the key (cut at 40)."""
    return (key_of(headers), "harassment")


def _echo_at_cut(plan: Plan, into: str, key: str) -> Plan:
    from simulator.replies import StreamError  # replies imports this module: no cycle at import time

    if into == "error":
        message = echo_cut_at(key, ECHO_CUTS["error"], "Provider returned error: ")
        error = StreamError(0, "in_band", 502, message, "provider_unavailable")
        return dataclasses.replace(plan, text="", finish_reason=None, native_finish_reason=None, error=error,
                                   tool_calls=())
    if into == "event":
        return dataclasses.replace(plan, raw_event=echo_cut_at(key, ECHO_CUTS["event"]), tool_calls=())
    if into == "header":
        return dataclasses.replace(plan, provider_header=echo_cut_at(key, ECHO_CUTS["header"]))
    if into == "tool_name":
        if not plan.tool_calls:
            return plan
        first = plan.tool_calls[0]
        names = tuple(key[i: i + NAME_FRAGMENT_CHARS] for i in range(0, len(key), NAME_FRAGMENT_CHARS))
        return dataclasses.replace(plan, tool_calls=(dataclasses.replace(first, name=key), *plan.tool_calls[1:]),
                                   name_fragments=names)
    if into == "text_cap":
        text = "Lorem ipsum dolor sit amet. " * (ECHO_CUTS["text_cap"] // 28 + 1)
        text = echo_cut_at(key, ECHO_CUTS["text_cap"], text[: ECHO_CUTS["text_cap"] - 200])
        pieces = tuple(text[i : i + NO_SPACE_PIECE_CHARS] for i in range(0, len(text), NO_SPACE_PIECE_CHARS))
        return dataclasses.replace(_text(plan, text), chunks=pieces, tool_calls=())
    return plan   # category: a moderation 403 before any byte (replies.plan_reply, echoed_categories)


def split_halves(text: str) -> list[str]:
    """Content deltas of `text` where every character outside the BMP ends one delta with its high
    UTF-16 half and starts the next with its low half (as a server cutting UTF-16 would)."""
    chunks, current = [], ""
    for char in text:
        if ord(char) > 0xFFFF:
            high, low = char.encode("utf-16-le")[:2], char.encode("utf-16-le")[2:]
            chunks.append(current + high.decode("utf-16-le", "surrogatepass"))
            current = low.decode("utf-16-le", "surrogatepass")
        else:
            current += char
    return [*chunks, current] if current else chunks


def dumps(payload: Mapping[str, Any] | str, plan: Plan | None = None) -> str:
    """One chunk or body as JSON text: surrogate halves as `\\uXXXX` escapes (they cannot be UTF-8),
    and a `deep_json` chunk's field nested `depth` levels (written as text: json.dumps would recurse)."""
    if isinstance(payload, str):
        return payload
    try:
        text = json.dumps(payload, ensure_ascii=False)
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(payload)
    depth = plan.deep_field if plan is not None else 0
    if depth:
        text = '{"nested": ' + "[" * depth + "]" * depth + ", " + text[1:]
    return text


def _text(plan: Plan, text: str) -> Plan:
    tokens = len(text.encode("utf-8", "surrogatepass")) // 4
    return dataclasses.replace(plan, text=text, finish_reason="stop", native_finish_reason="stop",
                               completion_tokens=max(plan.completion_tokens, tokens))
