"""The round record a round owner writes: its collected cases as core/results.py's RoundResults.

`build_results` is pure: the cases, the plan's models and the reasons the round is incomplete
in, the record out. `write_json` writes it (and discovery.json) atomically through core/store.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from core.results import REAL, CaseResult, Clock, ControlNote, Incomplete, ModelEntry, RoundResults
from core.store import atomic_write_text
from core.times import parse_time
from core.vocabulary import REFUSAL, Outcome
from probes.round.cases import CaseRecord


def build_results(*, round_id: str, started_at: str, finished_at: str, upstream: str,
                  models: Mapping[str, ModelEntry], records: Iterable[CaseRecord],
                  incomplete: Sequence[Incomplete], unprobed: Iterable[ControlNote] = (),
                  clock: Clock = REAL, controls_source: str | None = None) -> RoundResults:
    """The round record (core/results.py) of the cases the round owner collected, in order.

    Its usage per provider is derived from the cases; its weak probes are the control cases
    that failed (the control host passed the refusal probe).
    """
    cases = tuple(r.case for r in records)
    return RoundResults(
        round_id=round_id, started_at=parse_time(started_at, "started_at"),
        finished_at=parse_time(finished_at, "finished_at"), complete=not incomplete, incomplete=tuple(incomplete),
        upstream=upstream, models=dict(models), cases=cases,
        weak_probes=weak_probes(cases),
        unprobed_controls=tuple(unprobed),
        clock=clock, controls_source=controls_source,
    )


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
