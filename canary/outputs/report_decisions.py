"""The judge's decisions in the Allure report: one result per decision about an endpoint, with its card
(docs/workflow.md, the report). A decision is no test: its status is `unknown`, so the overview counts
the round's cases only. Pure: RoundDecisions in, Allure result objects out (`write()` puts them in a
results folder); everything shown is escaped as HTML.
"""

from __future__ import annotations

import hashlib
import html
import json
import uuid
from pathlib import Path
from typing import Any

from canary.outputs.roundview import WEAK_EVIDENCE, card_lines
from core.times import fmt_time
from judge.suspension.decisions import Action, RoundDecisions

SUITE = "judge decisions"
CARDED = frozenset({Action.SUSPEND, Action.WOULD_SUSPEND, Action.FLOOR_HELD, Action.RESTORE})  # those with a card
STATUS = "unknown"
MESSAGE_PREFIX = "judge decision: "
CATEGORIES: list[dict[str, object]] = [
    {"name": "Judge decision on weak evidence (not worse than its peers)", "matchedStatuses": [STATUS],
     "messageRegex": "(?s)judge decision: .*WEAK EVIDENCE.*"},
    {"name": "Judge decision (with its evidence card)", "matchedStatuses": [STATUS],
     "messageRegex": "(?s)judge decision: .*"},
]


def decision_results(doc: RoundDecisions) -> list[dict[str, Any]]:
    """Allure 2 result objects for the decisions of the round that carry a card."""
    out = []
    for d in doc.decisions:
        if d.action not in CARDED:
            continue
        action, label = d.action.value, d.action.label
        model, provider, until = d.model, d.provider, fmt_time(d.until)
        weak = d.weak_evidence
        lines = card_lines(d.card)
        message = f"{MESSAGE_PREFIX}{label} {provider}: {d.reason}" + (f"; {WEAK_EVIDENCE}" if weak else "")
        body = "".join(f"<li><code>{html.escape(line)}</code></li>" for line in lines) or "<li>no card</li>"
        warning = f"<p><strong>{html.escape(WEAK_EVIDENCE)}</strong></p>" if weak else ""
        key = f"canary-decision::{model}::{provider}"
        out.append({
            "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, f"{key}::{doc.round_id}::{action}")),
            "historyId": hashlib.md5(key.encode("utf-8")).hexdigest(),
            "name": f"{label} {provider}" + (" (weak evidence)" if weak else ""),
            "fullName": key,
            "status": STATUS,
            "statusDetails": {"message": message, "trace": "\n".join(lines)},
            "stage": "finished",
            "descriptionHtml": (f"<p>{html.escape(label)} <strong>{html.escape(provider)}</strong> of "
                                f"{html.escape(model)}: {html.escape(d.reason)}"
                                f"{' until ' + html.escape(until) if until else ''}</p>"
                                f"{warning}<p>Evidence against its peers (last counted rounds):</p><ul>{body}</ul>"),
            "labels": [{"name": "parentSuite", "value": model}, {"name": "suite", "value": SUITE},
                       {"name": "subSuite", "value": provider}, {"name": "model", "value": model},
                       {"name": "provider", "value": provider}, {"name": "tag", "value": f"decision:{action}"}],
            "parameters": [{"name": "round", "value": doc.round_id},
                           {"name": "mode", "value": doc.mode}],
        })
    return out


def write(doc: RoundDecisions, folder: Path) -> int:
    """Write the decision results into an Allure results folder (and their categories); how many."""
    results = decision_results(doc)
    for result in results:
        (folder / f"{result['uuid']}-result.json").write_text(json.dumps(result), encoding="utf-8")
    if results:
        path = folder / "categories.json"
        try:
            existing = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else []
        except ValueError:
            existing = []
        names = {c.get("name") for c in existing if isinstance(c, dict)}
        path.write_text(json.dumps([c for c in CATEGORIES if c["name"] not in names] + list(existing), indent=2),
                        encoding="utf-8")
    return len(results)
