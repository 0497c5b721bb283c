"""What the models API says about each model's thinking: on by default, off by default, mandatory
(docs/openrouter-wire.md §2). The endpoints listing does not carry it, so a round reads `/models` once;
anything missing or malformed reads as "not said" (None), and the probes send reasoning controls as before.
"""

from __future__ import annotations

from dataclasses import dataclass

from probes.http.client import PinnedClient, TransportError
from probes.http.wire import parse_json

MAX_MODELS_BYTES = 32 * 1024 * 1024  # the whole catalogue, a few MB today


@dataclass(frozen=True, slots=True)
class ThinkingDefaults:
    by_default: bool | None   # reasoning.default_enabled (None: not said)
    mandatory: bool           # reasoning.mandatory: thinking cannot be turned off


async def thinking_defaults(client: PinnedClient) -> dict[str, ThinkingDefaults]:
    """{model id: its thinking defaults} for the models whose entry says something; {} on any trouble."""
    try:
        status, raw = await client.get_bytes("models", max_bytes=MAX_MODELS_BYTES)
    except TransportError:
        return {}
    body = parse_json(raw) if status == 200 else None
    data = body.get("data") if isinstance(body, dict) else None
    out: dict[str, ThinkingDefaults] = {}
    for entry in data if isinstance(data, list) else []:
        reasoning = entry.get("reasoning") if isinstance(entry, dict) else None
        if not isinstance(reasoning, dict) or not isinstance(entry.get("id"), str):
            continue
        default, mandatory = reasoning.get("default_enabled"), reasoning.get("mandatory")
        out[entry["id"]] = ThinkingDefaults(default if isinstance(default, bool) else None, mandatory is True)
    return out
