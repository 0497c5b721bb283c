"""The round record a round owner writes: its collected cases as core/results.py's RoundResults.

`build_results` is pure: the round's head (its id, times, models, the reasons it is incomplete) and
the cases in, the record out. `write_json` writes it (and discovery.json) atomically through core/store.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from core.results import CaseResult, ControlNote, RoundResults
from core.store import atomic_write_text
from core.vocabulary import REFUSAL, Outcome
from probes.round.cases import CaseRecord


def build_results(head: RoundResults, records: Iterable[CaseRecord]) -> RoundResults:
    """The round record (core/results.py) of the cases the round owner collected, in order, onto its
    `head` (the round's id, times, models, controls and why it is incomplete).

    Its usage per provider is derived from the cases; its weak probes are the control cases
    that failed (the control host passed the refusal probe).
    """
    cases = tuple(r.case for r in records)
    return replace(head, complete=not head.incomplete, cases=cases, weak_probes=weak_probes(cases))


def weak_probes(cases: Iterable[CaseResult]) -> tuple[ControlNote, ...]:
    """A control case that failed means the control host passed the probe: the probe is weak."""
    return tuple(
        ControlNote(c.model, REFUSAL, c.provider,
                    f"positive control {c.provider} passed the refusal probe; refusal passes "
                    f"of other hosts of this model are inconclusive this round ({c.reason})")
        for c in cases if c.control and c.outcome is Outcome.FAIL)


def write_json(path: Path, doc: Any) -> None:
    """Write JSON atomically (core.store), keys in the record's own order: results.json reads top-down."""
    atomic_write_text(path, json.dumps(doc, indent=2, ensure_ascii=False, sort_keys=False) + "\n")
