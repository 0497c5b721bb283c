"""The short table printed at the end of `pytest probes`: provider x contract, outcome, TTFT, reason."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

SYMBOLS = {"pass": "✓ pass", "fail": "✗ FAIL", "inconclusive": "? inconcl.", "transport_error": "! transport",
           "not_applicable": "- n/a"}
REASON_CHARS = 70


def render(doc: Mapping[str, Any]) -> list[str]:
    """Lines of the table for a results.json document, then the loud round-level warnings."""
    lines: list[str] = []
    cases = sorted(doc.get("cases", []), key=lambda c: (c["model"], c["provider"], c["contract"]))
    widths = (max([len(c["provider"]) for c in cases] + [8]), 10, 12, 7)
    model = None
    for c in cases:
        if c["model"] != model:
            model = c["model"]
            lines.append(f"{model}")
            lines.append(f"  {'provider':<{widths[0]}}  {'contract':<{widths[1]}}  {'outcome':<{widths[2]}}  {'ttft':>{widths[3]}}  reason")
        ttft = f"{c['ttft_s']:.2f}s" if isinstance(c.get("ttft_s"), (int, float)) else "-"
        contract = c["contract"] + (f" {c['language']}" if c.get("language") else "") + (" ctl" if c.get("control") else "")
        reason = " ".join(str(c.get("reason", "")).split())
        reason = reason if len(reason) <= REASON_CHARS else reason[:REASON_CHARS - 1] + "…"
        lines.append(f"  {c['provider']:<{widths[0]}}  {contract:<{widths[1]}}  "
                     f"{SYMBOLS.get(c['outcome'], c['outcome']):<{widths[2]}}  {ttft:>{widths[3]}}  {reason}")
    for weak in doc.get("weak_probes", []):
        lines.append(f"!!! PROBE WEAK: {weak['model']} {weak['contract']}: {weak['reason']}")
    for miss in doc.get("unprobed_controls", []):
        lines.append(f"!!! CONTROL NOT PROBED: {miss['model']} {miss['contract']}: {miss['reason']}; "
                     "refusal passes of this model are inconclusive this round")
    if not doc.get("complete", False):
        lines.append(f"!!! ROUND INCOMPLETE: {doc.get('incomplete_reason')}")
    return lines
