"""Hostile hosts: replies built to break the client that reads them, not to look degraded (the table of
faults: simulator/README.md, Hostile hosts). They ignore `max_tokens`, as a hostile server would.
`apply` rewrites a Plan (pure); `dumps` serialises one chunk or body the way the plan needs.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import zlib
from collections.abc import Callable, Mapping
from typing import Any

from simulator.faults import Fault, FaultParams
from simulator.plan import Plan, StreamError  # the plan's types (replies.py, which applies these faults, is above)

FAULTS = frozenset({"echo_headers", "deep_json", "split_surrogates", "no_space"}) | frozenset({
    "huge_bill", "compressed_stream", "tool_flood",   # issue 31's sizes and numbers
    "echo_at_cut", "escape_codes",                    # issue 31's pieces of the key and control characters
})   # echo_hidden and escape_codes into provider answer an error status instead (named_error)
FLOOD_PER_EVENT = 1000            # tool_flood's fragments in one data event (one event each would take minutes)
_RAW_COST = "\u0000raw-cost\u0000"   # where dumps() writes huge_bill's number text (JSON cannot hold it as a float)
# Clear screen, a terminal title, an OSC 8 hyperlink, a bidi override, a bell: what a raw log would obey.
ESCAPES = ("\x1b[2J\x1b[H", "\x1b]0;canary: all hosts healthy\x07", "\x1b]8;;https://attacker.invalid/\x1b\\here\x1b]8;;\x1b\\",
           "\u202egnissap\u202c", "\x07")
ECHO_INTO = ("error", "event", "category", "header", "tool_name", "text_cap")
HIDDEN_FORMS: dict[str, Callable[[str], str]] = {   # the key as echo_hidden sends it (EchoHiddenParams.form)
    "zero_width": "\u200b".join,
    "soft_hyphen": "\u00ad".join,
    "reversed": lambda key: key[::-1],
    "percent": lambda key: "".join(f"%{byte:02X}" for byte in key.encode()),
    "u_escaped": lambda key: "".join(f"\\u{ord(char):04x}" for char in key),
}
# Where the client cuts upstream text (probes/http/: describe_error, StreamState's quote of a bad
# event, wire.FLAGGED_CHARS, the X-Provider-Name note, the tool-name excerpt, MAX_TEXT_CHARS).
ECHO_CUTS = {"error": 300, "event": 120, "category": 40, "header": 60, "text_cap": 64 * 1024}
NAME_FRAGMENT_CHARS = 10
EMOJI = "\U0001f600"              # 😀: outside the BMP, two UTF-16 halves in a JSON escape
LONE_HALF = "\ud83d"              # a high surrogate with no low one after it
NO_SPACE_PIECE_CHARS = 4096       # a long word still streams in a few chunks, not 16 K of them


def apply(plan: Plan, name: str, params: FaultParams, headers: Mapping[str, str]) -> Plan:
    """`plan` as the hostile fault `name` sends it (after max_tokens: hostile hosts ignore it)."""
    if name == "echo_headers":
        return _echo_headers(plan, params["into"], headers)
    if name == "deep_json":
        depth = params["depth"]
        return (dataclasses.replace(plan, deep_field=depth) if params["into"] == "chunk"
                else _text(plan, "[" * depth + "]" * depth))
    if name == "split_surrogates":
        return _split_surrogates(plan, params["lone"])
    if name == "escape_codes":
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
    if name == "huge_bill":
        digits = params["digits"]
        return dataclasses.replace(plan, raw_cost="9" * digits if params["cost"] == "integer" else "1e308")
    if name == "compressed_stream":
        return dataclasses.replace(plan, compressed=(params["encoding"], params["decoded_kb"]))
    if name == "tool_flood":
        if not plan.tool_calls:  # fires only where the request offered tools
            return plan
        return dataclasses.replace(plan, tool_flood=(params["name_fragments"], params["calls"]))
    raise ValueError(f"{name}: not a hostile fault")


def _echo_headers(plan: Plan, into: str, headers: Mapping[str, str]) -> Plan:
    if into == "provider":
        key = headers.get("Authorization", "").partition(" ")[2] or "no-key"
        return dataclasses.replace(plan, served=dataclasses.replace(plan.served, provider_name=key))
    echoed = "; ".join(f"{k}: {v}" for k, v in headers.items())
    return _text(plan, f"Your request headers: {echoed}\n\n{plan.text}")


def _split_surrogates(plan: Plan, lone: bool) -> Plan:
    chunks = split_halves(f" {EMOJI}. ".join(plan.text.split(". ")) + f" {EMOJI}")
    if lone:
        chunks.append(LONE_HALF)
    return dataclasses.replace(_text(plan, "".join(chunks)), chunks=tuple(chunks))


def compressed(body: bytes, encoding: str, decoded_kb: int) -> bytes:
    """`decoded_kb` KiB of keep-alives and then `body`, compressed as `encoding`."""
    prefix, packer = _compressed_keepalives(encoding, decoded_kb)
    rest = packer.copy()  # the keep-alives are compressed once per scenario, not once per request
    return bytes(prefix + rest.compress(body) + rest.flush())


@functools.cache
def _compressed_keepalives(encoding: str, decoded_kb: int) -> tuple[bytes, zlib._Compress]:
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS if encoding == "gzip" else zlib.MAX_WBITS)
    block = b": OPENROUTER PROCESSING\n\n" * 2600   # ~64 KiB
    return b"".join(packer.compress(block) for _ in range(max(1, decoded_kb // 64))), packer


@functools.cache
def flood_events(name_fragments: int, calls: int, first: int = 1) -> tuple[str, ...]:
    """tool_flood's `delta.tool_calls` lists as JSON text, FLOOD_PER_EVENT entries each: the name of call 0
    in one-letter fragments, then `calls` calls with empty arguments, indexed from `first` (after the
    reply's own). Built once per size: the simulator serves every host from one event loop, and
    encoding a flood per request would delay the healthy hosts' first tokens."""
    entries = ['{"index": 0, "function": {"name": "x"}}'] * name_fragments + [
        f'{{"index": {i}, "id": "call_flood_{i}", "type": "function", "function": {{"name": "", "arguments": ""}}}}'
        for i in range(first, first + calls)]
    return tuple("[" + ", ".join(entries[i : i + FLOOD_PER_EVENT]) + "]"
                 for i in range(0, len(entries), FLOOD_PER_EVENT))
def key_of(headers: Mapping[str, str]) -> str:
    """The key our request sent (what a header-echoing host gives back)."""
    return headers.get("Authorization", "").partition(" ")[2] or "no-key"


def echo_cut_at(key: str, cut: int, lead: str = "") -> str:
    """`lead` + "Authorization: Bearer <key>" padded so that the first `cut` characters end one
    character before the key does (the most of it a cut can keep)."""
    header = f"Authorization: Bearer {key}"
    pad = max(cut - len(lead) - len(header) + 1, 0)
    return f"{lead}{'.' * pad}{header} (your request headers, echoed)"


def named_error(fault: Fault, headers: Mapping[str, str]) -> str | None:
    """The provider name a relayed 502 of `fault` gives (its message quotes it too), or None when
    the fault sends no such error: echo_hidden's hidden key, escape_codes' ESCAPES into provider."""
    if fault.name == "echo_hidden":
        return HIDDEN_FORMS[fault["form"]](key_of(headers))
    if fault.name == "escape_codes" and fault["into"] == "provider":
        return " ".join(ESCAPES)
    return None


def echoed_categories(headers: Mapping[str, str]) -> tuple[str, ...]:
    """`echo_at_cut` into category: moderation categories whose first is the key (cut at 40)."""
    return (key_of(headers), "harassment")


def _echo_at_cut(plan: Plan, into: str, key: str) -> Plan:

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
    if plan is not None and plan.raw_cost is not None and isinstance(payload.get("usage"), Mapping):
        usage = {**payload["usage"], "cost": _RAW_COST}
        text = dumps({**payload, "usage": usage}, dataclasses.replace(plan, raw_cost=None))
        text = text.replace(json.dumps(_RAW_COST), plan.raw_cost)
    return text


def _text(plan: Plan, text: str) -> Plan:
    tokens = len(text.encode("utf-8", "surrogatepass")) // 4
    return dataclasses.replace(plan, text=text, finish_reason="stop", native_finish_reason="stop",
                               completion_tokens=max(plan.completion_tokens, tokens))
