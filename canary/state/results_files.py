"""Reading the round's files: results.json into its RoundResults, the edge of
core/results.py, and decisions.json into the judge's RoundDecisions, the edge of
judge/suspension/decisions.py.

The records and their checks are pure (core.results, judge.suspension.decisions);
this module only opens the files, so every command that reads a round (judge, summary, history,
incident excerpts) or its decisions (commit, announce, heartbeat, issues, report, history) reads it
the same way and names the file in its errors.
"""

from __future__ import annotations

from pathlib import Path

from core.results import RoundResults
from core.results_read import read_results
from core.store import StoreError, read_json
from judge.suspension.decisions import DecisionsError, RoundDecisions, read_round_decisions


def load_round(path: Path) -> RoundResults:
    """Read and check the round's results file; ResultsError/StoreError name the file."""
    raw = read_json(Path(path), "results file", "re-run the round or pass the right file")
    if raw is None:
        raise StoreError(f"{path}: no such results file")
    return read_results(raw, str(path))


def read_decisions(path: Path) -> RoundDecisions | None:
    """The judge's record of a round from its decisions.json, or None when there is no such file;
    StoreError (not JSON) or DecisionsError (another shape) name the file."""
    raw = read_json(Path(path), "decisions file", "re-run `canary judge` on the round")
    if raw is None:
        return None
    try:
        return read_round_decisions(raw)
    except DecisionsError as exc:
        raise DecisionsError(f"{path}: {exc}; re-run `canary judge` on the round") from None
