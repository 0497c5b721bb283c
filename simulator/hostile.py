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

Where the table says (below):
- `echo_headers` into text: the request's headers, `Authorization` included, before the reply;
  into provider: the key as every chunk's `provider`.
- `deep_json` into content: the reply is `[` x depth then `]` x depth; into chunk: every data
  event carries such a field.
- `split_surrogates` with lone: one unpaired half too.

`apply` rewrites a Plan (pure); `dumps` serialises one chunk or body the way the plan needs.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

from simulator.plan import Plan  # the plan's type (replies.py, which applies these faults, is above)

FAULTS = frozenset({"echo_headers", "deep_json", "split_surrogates", "no_space"})
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
    if name == "no_space":
        text = ("Lorem" * (params["chars"] // 5 + 1))[: params["chars"]]
        pieces = tuple(text[i : i + NO_SPACE_PIECE_CHARS] for i in range(0, len(text), NO_SPACE_PIECE_CHARS))
        return dataclasses.replace(_text(plan, text), chunks=pieces)
    raise ValueError(f"{name}: not a hostile fault")


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
