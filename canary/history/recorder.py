"""Recording judged rounds (I/O): the judge's hook and the backfill of `canary history record`.

`record_after_judge()` runs after the state is saved and never makes the judge fail: whatever goes
wrong becomes one `history_failed` warning in the audit log and on stderr (docs/history.md).
"""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path

from canary.history.rows import HistoryError, round_record
from canary.history.store import Recorded, history_root, record_round
from canary.state import audit
from canary.state.results_files import load_round
from core.config import PathSettings
from core.results import ResultsError, RoundResults
from core.store import StoreError
from judge.suspension.decisions import RoundDecisions

HISTORY_FAILED = "history_failed"


def record_files(history: Path, results: Path, decisions: RoundDecisions | None, *,
                 now: datetime, compact_days: bool = True) -> Recorded:
    """Record the round of the file `results` with its decisions; HistoryError/StoreError say why not."""
    try:
        record = round_record(load_round(results), decisions)
    except ResultsError as exc:
        raise HistoryError(str(exc)) from None
    except HistoryError as exc:
        raise HistoryError(f"{results}: {exc}") from None
    return record_round(history, record, now=now, compact_days=compact_days)


def record_after_judge(paths: PathSettings, results: RoundResults, decisions: RoundDecisions, *, now: datetime,
                       compact_days: bool = True) -> None:
    """The judge's hook: record the judged round in `paths.history`; a failure is only a warning.
    `compact_days=False` (a re-run of an applied round): only add it if missing, changing no other file."""
    try:
        record_round(history_root(paths), round_record(results, decisions), now=now, compact_days=compact_days)
    except Exception as exc:  # noqa: BLE001 - evidence must never block judging, whatever broke
        problem = str(exc) if isinstance(exc, (HistoryError, StoreError, OSError)) else f"{type(exc).__name__}: {exc}"
        print(f"canary judge: warning: the round was judged but not added to the history: {problem}", file=sys.stderr)
        try:
            audit.append(paths.audit, [audit.warning_line(now, decisions.round_id, decisions.mode,
                                                          action=HISTORY_FAILED, rule="history",
                                                          reason=problem[:500])])
        except (OSError, StoreError) as audit_exc:
            print(f"canary judge: warning: could not log that in the audit log either: {audit_exc}", file=sys.stderr)
