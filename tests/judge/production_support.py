"""Production records for judge tests (core/production.py), built from plain numbers."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta

from core.production import SCHEMA, CheckOutcome, CountCell, ProductionCheck, ProductionRecord, ServedCell

WINDOW = timedelta(minutes=30)


def record(end: datetime, counts: Mapping[str, tuple[int, int]], *, model: str, exporter: str = "chat-eu-1",
           check: ProductionCheck = ProductionCheck.ENCODING, language: str | None = "en", stream: bool | None = True,
           sample_rate: float = 0.05, ambiguous: frozenset[str] = frozenset()) -> ProductionRecord:
    """One exporter's window ending at `end`: provider name -> (failed, passed) replies of `check`."""
    cells = [CountCell(model=model, provider=name, check=check, outcome=outcome, n=n, language=language, stream=stream)
             for name, (failed, passed) in sorted(counts.items())
             for outcome, n in ((CheckOutcome.FAIL, failed), (CheckOutcome.PASS, passed)) if n]
    served = [ServedCell(model=model, provider=name, n=failed + passed, ambiguous=name in ambiguous)
              for name, (failed, passed) in sorted(counts.items()) if failed + passed]
    return ProductionRecord(schema=SCHEMA, exporter=exporter, window_start=end - WINDOW, window_end=end,
                            sample_rate=sample_rate, counts=tuple(cells), served=tuple(served))
