"""User reports: evidence that asks the probes to look, never a rule (pure; docs/explain.md, section 2).

Two reports (two replies: the library counts a generation once) against one endpoint within
REPORT_SPAN ask the next round to confirm each of its contracts, pinned, three attempts, the
majority deciding: the rounds of the NEW hour after the window of the report that made it two (not
every round of the day the two stay within REPORT_SPAN). A provider that runs several endpoints of
the model has each confirmed: a confirmation costs a few requests and convicts nobody.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from core.production import ProductionRecord
from judge.suspension.route_audit import Names, endpoints_named

REPORT_SPAN = timedelta(hours=24)
MIN_REPORTS = 2
NEW = timedelta(hours=1)   # a report counts as new this long after its window (a record may come a round late)


def reports_by_endpoint(records: Iterable[ProductionRecord], names: Names, *, since: datetime,
                        until: datetime) -> dict[tuple[str, str], int]:
    """(model, tag) -> the reports against it in the records whose window ended in (since, until]."""
    out: dict[tuple[str, str], int] = {}
    for r in records:
        if since < r.window_end <= until:
            for cell in r.reports:
                for tag in endpoints_named(names.get(cell.model, {}), cell.provider):
                    out[(cell.model, tag)] = out.get((cell.model, tag), 0) + cell.n
    return out


def to_confirm(records: Iterable[ProductionRecord], names: Names, *, now: datetime) -> dict[tuple[str, str], int]:
    """(model, tag) -> its reports, for each endpoint reported MIN_REPORTS times within REPORT_SPAN before `now`,
    one of them new (its window ended within NEW)."""
    records = list(records)
    counts = reports_by_endpoint(records, names, since=now - REPORT_SPAN, until=now)
    new = reports_by_endpoint(records, names, since=now - NEW, until=now)
    return {endpoint: n for endpoint, n in sorted(counts.items()) if n >= MIN_REPORTS and new.get(endpoint)}
