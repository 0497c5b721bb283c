"""state/audit.jsonl: the append-only log of every decision (JSON Lines).

One line per decision:
    {"time": "<now of the decision>", "round_id": "...", "mode": "observe", "model": "...",
     "provider": "...", "action": "suspend", "rule": "failed_streak", "reason": "...",
     "until": "..."?, "rung": 1?, "evidence": [{"contract", "outcome", "reason"}]}
plus warnings that are not decisions, with their own action names: "rejected_input" (an upstream
provider tag or case the judge set aside) and "webhook_failed" (a notification not delivered).

Lines are appended with one os.write of the whole batch followed by fsync, so a crash leaves
either all of a batch's lines or none of them torn in the middle only if the disk lies.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

from canary.state import fmt_time
from judge.decisions import Decision
from judge.report import RejectedInput

REJECTED_INPUT = "rejected_input"
WEBHOOK_FAILED = "webhook_failed"


def decision_to_json(decision: Decision) -> dict[str, Any]:
    """A decision as it appears in decisions.json and the audit log."""
    out: dict[str, Any] = {
        "model": decision.model, "provider": decision.provider, "action": decision.action.value,
        "rule": decision.rule.value, "reason": decision.reason,
        "evidence": [{"contract": e.contract, "outcome": e.outcome, "reason": e.reason} for e in decision.evidence],
    }
    if decision.until is not None:
        out["until"] = fmt_time(decision.until)
    if decision.rung is not None:
        out["rung"] = decision.rung
    return out


def decision_lines(decisions: Iterable[Decision], *, round_id: str | None, mode: str,
                   now: datetime) -> list[dict[str, Any]]:
    return [{"time": fmt_time(now), "round_id": round_id, "mode": mode, **decision_to_json(d)} for d in decisions]


def rejected_lines(rejected: Iterable[RejectedInput], *, round_id: str, mode: str, now: datetime) -> list[dict[str, Any]]:
    return [{"time": fmt_time(now), "round_id": round_id, "mode": mode, "model": r.model, "provider": r.provider,
             "action": REJECTED_INPUT, "rule": "input_validation", "reason": r.problem, "evidence": []}
            for r in rejected]


def append(path: Path, records: Iterable[dict[str, Any]]) -> None:
    """Append records as JSON lines with a single write and an fsync."""
    data = "".join(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n" for r in records)
    if not data:
        return
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        payload = data.encode("utf-8")
        written = os.write(fd, payload)
        while written < len(payload):  # a short write on a full pipe/disk: finish it, never drop a decision
            written += os.write(fd, payload[written:])
        os.fsync(fd)
    finally:
        os.close(fd)
