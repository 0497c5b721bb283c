"""The status page's "billed / listed" column (issue 22): what an endpoint was billed (`usage.cost`)
against what its listing gives for the same usage, over its evidence window (pure).

The figures come from the judge's state (judge/suspension/billing_window.py), so the column
covers the same counted rounds as the evidence cards. A ratio above 1 is overbilling (each
reply's check fails above 1.10 x, judge/replies/billing.py); below 1 a discount or a cache hit.
"""

from __future__ import annotations

from typing import Any

from judge.suspension.state import ProviderState


def billing_cell(ps: ProviderState | None) -> dict[str, Any] | None:
    """{billed, listed (USD), ratio (None: nothing listed), rounds} or None: no reported cost yet."""
    if ps is None or not ps.billing:
        return None
    ratio = ps.billing.ratio
    return {"billed": round(ps.billing.billed_usd, 9), "listed": round(ps.billing.listed_usd, 9),
            "ratio": None if ratio is None else round(ratio, 3), "rounds": len(ps.billing.rounds)}
