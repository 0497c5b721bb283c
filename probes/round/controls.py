"""Positive-control verdicts shared across the processes of an xdist round.

Under xdist the control host's refusal case runs on one worker (the one its endpoint is
scheduled to), while refusal cases of other hosts on other workers need its verdict. The owning
worker probes the control first (it is at the front of its share) and publishes the result in a
small file under reports/ (atomic write, one file per control case, named by the round id);
the other workers wait for that file, bounded by a deadline. Every worker therefore judges
refusal against the same control result, and the control costs one request per round.

A control case is probed whenever a refusal case of its model is selected, even when `-k` or
`-m` deselected the control itself (`controls_to_keep`; the plugin puts its item back, and the
terminal names it as the control kept): `pytest probes -k <tag>` then gives that endpoint the
same refusal verdict as the full round, at one request more. A run without refusal cases of the
model (`-m latency`) needs no control and probes none. A control that is still not selected
(no pytest item for it) leaves the refusal passes of its model "probe unverified" (see
probes/round/contracts/refusal.py).

A configured control that gives no verdict this round (not discovered, not selected, or probed
without a verdict: unreachable, inconclusive) is never a silent state: `unprobed_controls()`
lists it in results.json, from where it reaches the terminal table, the judge's decisions
(`control_unprobed`), the summary, the notification and the Allure report.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections.abc import Collection, Iterable
from pathlib import Path

from core.results import CaseResult, ControlNote
from core.store import atomic_write_text
from core.vocabulary import REFUSAL, Outcome, case_id
from probes.round.cases import Case, ProbedCase, TransportCode
from probes.round.planning import RoundPlan

POLL_S = 0.05
NOT_DISCOVERED = "not discovered"
NOT_SELECTED = "not selected in this run"
NO_VERDICT = (Outcome.TRANSPORT_ERROR, Outcome.INCONCLUSIVE)


def controls_to_keep(selected: Iterable[Case], planned: Iterable[Case]) -> list[Case]:
    """The control cases of `planned` to probe although not in `selected`: those of every model
    with a selected ordinary refusal case (the refusal verdict depends on them)."""
    chosen = list(selected)
    ids = {c.id for c in chosen}
    models = {c.model for c in chosen if c.contract == REFUSAL and not c.control}
    return [c for c in planned if c.control and c.model in models and c.id not in ids]


def unselected_controls(plan: RoundPlan, selected: Collection[str]) -> dict[str, tuple[tuple[str, str], ...]]:
    """Per model, (tag, why) of each configured control this run will not probe at all.

    Only models with a selected, ordinary refusal case: a control matters when some host's
    refusal pass depends on it (a `-m latency` run needs none).
    """
    if REFUSAL not in plan.contracts:
        return {}
    cases = [c for c in plan.cases() if isinstance(c, Case)]
    probed = {c.id for c in cases if c.control and c.id in selected}
    out: dict[str, tuple[tuple[str, str], ...]] = {}
    for model in plan.endpoints:
        if not any(c.model == model and c.contract == REFUSAL and not c.control and c.id in selected for c in cases):
            continue
        discovered = {ep.provider for ep in plan.endpoints[model]}
        missing = tuple((tag, NOT_DISCOVERED if tag not in discovered else NOT_SELECTED)
                        for tag in plan.controls.get(model, ())
                        if tag not in discovered or case_id(model, tag, REFUSAL) not in probed)
        if missing:
            out[model] = missing
    return out


def unprobed_controls(plan: RoundPlan, selected: Collection[str],
                      cases: Iterable[CaseResult]) -> list[ControlNote]:
    """results.json's `unprobed_controls`: every configured control that gave no verdict this round."""
    out = [ControlNote(model, REFUSAL, tag, f"{tag} {why}" + (
                " by the upstream for this model" if why == NOT_DISCOVERED else " (-k/-m)"))
           for model, missing in unselected_controls(plan, selected).items() for tag, why in missing]
    for c in cases:
        if c.control and c.outcome in NO_VERDICT:
            out.append(ControlNote(c.model, REFUSAL, c.provider,
                                   f"{c.provider} probed without a verdict ({c.outcome.value}): {c.reason}"))
    return out


def control_dir(reports: Path, round_id: str) -> Path:
    return reports / f".controls-{round_id}"


def _file(directory: Path, case_id: str) -> Path:
    return directory / (hashlib.sha1(case_id.encode()).hexdigest()[:16] + ".json")


def publish(directory: Path, result: ProbedCase) -> None:
    """Write one control result atomically (the reader sees all of it or nothing)."""
    atomic_write_text(_file(directory, result.case_id), json.dumps(result.to_wire()))


class FileControls:
    """Worker side: a ControlBoard that waits for the owning worker's files (bounded by a deadline)."""

    def __init__(self, directory: Path, expected: dict[str, tuple[Case, ...]], wait_s: float) -> None:
        self.directory = directory
        self.expected = expected
        self.wait_s = wait_s
        self._started = time.monotonic()

    async def control_results(self, model: str) -> tuple[ProbedCase, ...]:
        return tuple(await asyncio.gather(*(self._result_for(c) for c in self.expected.get(model, ()))))

    async def _result_for(self, case: Case) -> ProbedCase:
        path = _file(self.directory, case.id)
        while True:
            try:
                return ProbedCase.from_wire(json.loads(path.read_text(encoding="utf-8")))
            except (OSError, ValueError):
                pass
            if time.monotonic() - self._started > self.wait_s:
                return ProbedCase.of(case, Outcome.TRANSPORT_ERROR, TransportCode.TRANSPORT_OTHER,
                                     "control verdict never arrived from the worker probing it",
                                     raw_outcome=Outcome.TRANSPORT_ERROR)
            await asyncio.sleep(POLL_S)
