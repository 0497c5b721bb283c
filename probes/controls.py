"""Positive-control verdicts shared across the processes of an xdist round.

Under xdist the control host's refusal case runs on one worker (the one its endpoint is
scheduled to), while refusal cases of other hosts on other workers need its verdict. The owning
worker probes the control first (it is at the front of its share) and publishes the result in a
small file under reports/ (atomic write, one file per control case, named by the round id);
the other workers wait for that file, bounded by a deadline. Every worker therefore judges
refusal against the same control result, and the control costs one request per round.

A control case that is not selected this run (`-k`, `-m`) is not probed at all: the refusal
passes of its model are then "probe unverified" (see probes/contracts/refusal.py), and
`pytest probes -k <tag>` really probes only that endpoint.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import time
from pathlib import Path

from judge.verdict import Outcome
from probes.cases import Case, CaseResult, result_from_wire, result_to_wire

POLL_S = 0.05


def control_dir(reports: Path, round_id: str) -> Path:
    return reports / f".controls-{round_id}"


def _file(directory: Path, case_id: str) -> Path:
    return directory / (hashlib.sha1(case_id.encode()).hexdigest()[:16] + ".json")


def publish(directory: Path, result: CaseResult) -> None:
    """Write one control result atomically (the reader sees all of it or nothing)."""
    directory.mkdir(parents=True, exist_ok=True)
    target = _file(directory, result.case_id)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(result_to_wire(result)), encoding="utf-8")
    os.replace(tmp, target)


class FileControls:
    """Worker side: a ControlBoard that waits for the owning worker's files (bounded by a deadline)."""

    def __init__(self, directory: Path, expected: dict[str, tuple[Case, ...]], wait_s: float) -> None:
        self.directory = directory
        self.expected = expected
        self.wait_s = wait_s
        self._started = time.monotonic()

    async def control_results(self, model: str) -> tuple[CaseResult, ...]:
        return tuple(await asyncio.gather(*(self._result_for(c) for c in self.expected.get(model, ()))))

    async def _result_for(self, case: Case) -> CaseResult:
        path = _file(self.directory, case.id)
        while True:
            try:
                return result_from_wire(json.loads(path.read_text(encoding="utf-8")))
            except (OSError, ValueError):
                pass
            if time.monotonic() - self._started > self.wait_s:
                return CaseResult.for_case(case, Outcome.TRANSPORT_ERROR,
                                           "control verdict never arrived from the worker probing it",
                                           raw_outcome=Outcome.TRANSPORT_ERROR)
            await asyncio.sleep(POLL_S)
