"""The short table printed at the end of `pytest probes`: provider x contract, outcome, TTFT, reason."""

from __future__ import annotations

from core.results import RoundResults
from core.untrusted import clean

SYMBOLS = {"pass": "✓ pass", "fail": "✗ FAIL", "inconclusive": "? inconcl.", "transport_error": "! transport",
           "not_applicable": "- n/a"}
REASON_CHARS = 70


def render(results: RoundResults) -> list[str]:
    """Lines of the table for one round record, then the loud round-level warnings."""
    lines: list[str] = []
    cases = sorted(results.cases, key=lambda c: (c.model, c.provider, c.contract))
    labels = [c.contract + (f" {c.language}" if c.language else "") + (" ctl" if c.control else "") for c in cases]
    widths = (max([len(c.provider) for c in cases] + [8]), max([len(label) for label in labels] + [8]), 12, 7)
    model = None
    for c, contract in zip(cases, labels, strict=True):
        if c.model != model:
            model = c.model
            lines.append(f"{model}")
            lines.append(f"  {'provider':<{widths[0]}}  {'contract':<{widths[1]}}  "
                         f"{'outcome':<{widths[2]}}  {'ttft':>{widths[3]}}  reason")
        ttft = f"{c.ttft_s:.2f}s" if c.ttft_s is not None else "-"
        reason = clean(c.reason, REASON_CHARS)   # upstream text: no escape sequence reaches the log
        lines.append(f"  {c.provider:<{widths[0]}}  {contract:<{widths[1]}}  "
                     f"{SYMBOLS[c.outcome.value]:<{widths[2]}}  {ttft:>{widths[3]}}  {reason}")
    for weak in results.weak_probes:
        lines.append(f"!!! PROBE WEAK: {weak.model} {weak.contract}: {clean(weak.reason, 300)}")
    for miss in results.unprobed_controls:
        lines.append(f"!!! CONTROL NOT PROBED: {miss.model} {miss.contract}: {clean(miss.reason, 300)}; "
                     "refusal passes of this model are inconclusive this round")
    if results.key_limit_note:
        lines.append(f"!!! KEY LIMIT NEAR: {results.key_limit_note}")
    if not results.complete:
        lines.append(f"!!! ROUND INCOMPLETE: {clean(results.incomplete_reason, 600)}")
    return lines
