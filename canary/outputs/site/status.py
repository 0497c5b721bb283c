"""status.json, declared once: the Structs it is written from and its JSON Schema, generated.

status.json (schema_version 1, docs/file-formats.md) is for gateways and chat backends that want
each model's provider.ignore and every endpoint's state without this repository. `StatusFile` and
the records below it are the file: feeds.py builds one from the page document, build.py writes it,
and `status_schema()` derives the JSON Schema published beside it (assets/status.schema.json) from
the same types, their descriptions included. The committed schema is generated:

    python -m canary.outputs.site.status       # rewrite assets/status.schema.json

and tests/canary/outputs/test_status_schema.py fails until it is run after a change here. canary
writes the file and never reads it back, so nothing here refuses a key: a reader should skip keys
it does not know (fields may be added without a version change; a removed or changed field bumps
schema_version).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import msgspec
from msgspec import Meta

from canary.history.tiers import HealthTier
from canary.outputs.site.endpoints import STATES
from core.layers import PEOPLE_LAYERS

STATUS_SCHEMA_VERSION = 1
SCHEMA_FILE = Path(__file__).resolve().parent / "assets" / "status.schema.json"
_TIME_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$"

Time = Annotated[str, Meta(pattern=_TIME_PATTERN)]
Tags = Annotated[tuple[str, ...], Meta(extra_json_schema={"uniqueItems": True})]


class NewestRound(msgspec.Struct, frozen=True):
    """The newest judged round in the history."""

    round_id: str
    at: Time
    mode: Annotated[str | None, Meta(extra_json_schema={"enum": ["observe", "enforce", None]})]
    complete: bool


class ExcludedBy(msgspec.Struct, frozen=True):
    """The person's exclusion that keeps the endpoint out."""

    layer: Annotated[str, Meta(extra_json_schema={"enum": [layer.name for layer in PEOPLE_LAYERS]})]
    reason: str
    expires: Time | None
    added_by: str | None


class EndpointStatus(msgspec.Struct, frozen=True):
    """One endpoint's current state."""

    state: Annotated[str, Meta(extra_json_schema={"enum": list(STATES)}, description=(
        "What routing does now: excluded by a person, suspended (enforce), would be suspended (observe), "
        "held by the capacity floor, or active."))]
    tier: Annotated[str, Meta(extra_json_schema={"enum": [t.value for t in HealthTier]}, description=(
        "Health from the history (display only; the rules never read it)."))]
    status: Annotated[str, Meta(description="One word for people: `state` unless it is active, then `tier`.")]
    until: Annotated[Time | None, Meta(description="When a suspension ends, or when a person's exclusion expires.")]
    in_provider_ignore: bool
    excluded_by: ExcludedBy | None
    reasons: Annotated[tuple[str, ...], Meta(description="Why it is in its state (untrusted text: escape it).")]
    tier_reasons: tuple[str, ...]
    last_round_at: Time | None
    ttft_p50_s: float | None
    ttft_p95_s: float | None
    tokens_per_s_p50: float | None
    billed_over_listed: Annotated[float | None, Meta(description=(
        "usage.cost billed / the listed prices for the same usage, over the evidence window (null: no reported "
        "cost)."))] = None
    production: Annotated[tuple[str, ...], Meta(description=(
        "Its production evidence worth a glance, as the page shows it (a chat backend's sampled replies, "
        "docs/production.md): its failing checks against its peers, a shared provider, a stale exporter. Untrusted "
        "text: escape it."))] = ()


class ModelStatus(msgspec.Struct, frozen=True):
    """One model: what to send as provider.ignore, and its endpoints."""

    provider_ignore: Annotated[Tags, Meta(description=(
        "Send this as provider.ignore: built-in and incident exclusions plus active enforce-mode suspensions, "
        "sorted."))]
    would_ignore: Annotated[Tags, Meta(description=(
        "provider_ignore plus active observe-mode suspensions: what enforce mode would send."))]
    badge: Annotated[str, Meta(description="Path of the model's SVG badge, relative to this file.")]
    endpoints: dict[str, EndpointStatus]


class StatusFile(msgspec.Struct, frozen=True):
    """Each model's effective provider.ignore and every endpoint's current state, as published beside the
    canary status page. Fields may be added without a version change; a removed or changed field bumps
    schema_version."""

    schema_version: Annotated[int, Meta(extra_json_schema={"const": STATUS_SCHEMA_VERSION})]
    generated_at: Time
    newest_round: Annotated[NewestRound | None, Meta(description=(
        "The newest judged round in the history; null when there is none. Compare `at` with your clock: "
        "rounds run every 30 minutes."))]
    stale_after_minutes: Annotated[float, Meta(gt=0)]
    stale_at_generation: Annotated[bool, Meta(description=(
        "The newest round was older than stale_after_minutes when this file was written (or there was none)."))]
    models: dict[str, ModelStatus]


def encode(status: StatusFile) -> bytes:
    """status.json's bytes: one-space indentation, UTF-8 kept as text, a final newline."""
    return (json.dumps(msgspec.to_builtins(status), indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def status_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of status.json, derived from StatusFile."""
    generated = _one_line(msgspec.json.schema(StatusFile))
    defs = generated["$defs"]
    top = defs.pop("StatusFile")
    top.pop("title", None)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": f"urn:canary:status:{STATUS_SCHEMA_VERSION}",
            "title": f"canary status feed (status.json), schema_version {STATUS_SCHEMA_VERSION}",
            **top, "$defs": defs}


def _one_line(node: Any) -> Any:
    """Each description (a docstring, wrapped in the source) on one line."""
    if isinstance(node, dict):
        return {k: " ".join(v.split()) if k == "description" else _one_line(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_one_line(v) for v in node]
    return node


def schema_text() -> str:
    """assets/status.schema.json as committed."""
    return json.dumps(status_schema(), indent=2, ensure_ascii=False) + "\n"


def main() -> int:
    SCHEMA_FILE.write_text(schema_text(), encoding="utf-8")
    print(f"{SCHEMA_FILE}: regenerated from canary/outputs/site/status.py")
    return 0


if __name__ == "__main__":
    sys.exit(main())
