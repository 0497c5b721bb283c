"""The machine-readable files published beside the page (pure): status.json (declared in status.py)
and decisions.atom, an Atom 1.0 feed (RFC 4287) of the judge's decisions, newest first.

Both are built from the page document of collect.py, so the page and the feeds never disagree.
Upstream text (reasons, evidence) is kept as text: JSON escapes itself, and the feed is built
with ElementTree (which escapes markup) after removing the characters XML 1.0 cannot carry.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote
from xml.etree import ElementTree as ET

from canary.outputs.site.status import (
    STATUS_SCHEMA_VERSION,
    EndpointStatus,
    ExcludedBy,
    ModelStatus,
    NewestRound,
    StatusFile,
)
from judge.suspension.decisions import action_named

ATOM_NS = "http://www.w3.org/2005/Atom"
FEED_ID = "urn:canary:decisions"
ATOM_ENTRIES = 100
# Characters XML 1.0 does not allow anywhere (not even escaped): C0 controls but tab, LF, CR;
# surrogates; U+FFFE and U+FFFF.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")



def status_document(page: Mapping[str, Any]) -> StatusFile:
    """status.json from the page document (status.py declares it; docs/file-formats.md lists every field)."""
    return StatusFile(
        schema_version=STATUS_SCHEMA_VERSION, generated_at=page["generated_at"],
        newest_round=None if page["newest_round"] is None else NewestRound(**page["newest_round"]),
        stale_after_minutes=page["stale_after_minutes"], stale_at_generation=page["stale_at_generation"],
        models={m["model"]: ModelStatus(
            provider_ignore=tuple(m["provider_ignore"]), would_ignore=tuple(m["would_ignore"]), badge=m["badge"],
            endpoints={e["provider"]: EndpointStatus(
                state=e["state"], tier=e["tier"], status=e["status"], until=e["until"],
                in_provider_ignore=e["provider"] in m["provider_ignore"],
                excluded_by=None if e["excluded_by"] is None else ExcludedBy(**e["excluded_by"]),
                reasons=tuple(e["reasons"]), tier_reasons=tuple(e["tier_reasons"]),
                last_round_at=e["last_round_at"], ttft_p50_s=e["latency"]["p50"], ttft_p95_s=e["latency"]["p95"],
                tokens_per_s_p50=e["latency"]["tps"], billed_over_listed=(e.get("billing") or {}).get("ratio"),
                production=tuple(e.get("production") or ()),
            ) for e in m["endpoints"]},
        ) for m in page["models"]},
    )


def atom_feed(decisions: Sequence[Mapping[str, Any]], *, updated: str, base_url: str = "") -> bytes:
    """decisions.atom: one entry per decision (newest first), ids stable across rebuilds."""
    ET.register_namespace("", ATOM_NS)
    feed = ET.Element(f"{{{ATOM_NS}}}feed")
    _text(feed, "title", "canary: routing decisions")
    _text(feed, "subtitle", "Suspensions, restores and warnings of the canary's judge, newest first.")
    _text(feed, "id", FEED_ID)
    _text(feed, "updated", updated)
    author = ET.SubElement(feed, f"{{{ATOM_NS}}}author")
    _text(author, "name", "canary")
    ET.SubElement(feed, f"{{{ATOM_NS}}}link", rel="self", href=base_url + "decisions.atom",
                  type="application/atom+xml")
    ET.SubElement(feed, f"{{{ATOM_NS}}}link", rel="alternate", href=base_url + "index.html", type="text/html")
    ET.SubElement(feed, f"{{{ATOM_NS}}}generator").text = "canary site"
    for d in decisions[:ATOM_ENTRIES]:
        entry = ET.SubElement(feed, f"{{{ATOM_NS}}}entry")
        _text(entry, "id", entry_id(d))
        action = action_named(d["action"])
        what = action.label if action is not None else d["action"]
        who = f"{d['provider']} ({d['model']})" if d["provider"] else d["model"]
        _text(entry, "title", f"{who}: {what}")
        _text(entry, "updated", d["at"])
        ET.SubElement(entry, f"{{{ATOM_NS}}}link", rel="alternate", type="text/html",
                      href=base_url + "index.html#" + quote(f"model-{d['model']}", safe=""))
        ET.SubElement(entry, f"{{{ATOM_NS}}}category", term=_clean(d["action"]))
        _text(entry, "content", entry_text(d)).set("type", "text")
    body: bytes = ET.tostring(feed, encoding="utf-8", xml_declaration=False)
    return b'<?xml version="1.0" encoding="utf-8"?>\n' + body + b"\n"


def entry_id(d: Mapping[str, Any]) -> str:
    """A stable id: the same decision gets the same id in every rebuild (round, model, provider, action)."""
    parts = (d["round_id"], d["model"], d["provider"] or "-", d["action"])
    return "urn:canary:decision:" + ":".join(quote(str(p), safe="-._+") for p in parts)


def entry_text(d: Mapping[str, Any]) -> str:
    lines = [f"{d['action']} ({d['rule']}): {d['reason']}"]
    if d.get("until"):
        lines.append(f"until {d['until']}")
    lines += [f"{c} {o}: {r}" for c, o, r in d.get("evidence") or ()]
    if d.get("card"):
        lines.append(str(d["card"]))
    lines.append(f"round {d['round_id']} at {d['at']}")
    return "\n".join(lines)


def _text(parent: ET.Element, tag: str, text: str) -> ET.Element:
    element = ET.SubElement(parent, f"{{{ATOM_NS}}}{tag}")
    element.text = _clean(text)
    return element


def _clean(text: str) -> str:
    return _NOT_XML.sub("\ufffd", str(text))
