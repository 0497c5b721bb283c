"""One round in one process: what it started, what it collected, and the record it ends with.

The pytest plugin (probes/pytest_plugin/hooks.py) is a thin adapter over a Round: it settles the
settings, then calls `Round.open` (the language-judge process of an xdist controller, the
replayable discovery.json), `start` (the engine over this process's share of the selected
cases), `collect` (each case's record as the round owner receives it), `close` and `finish`
(the round record, written to results.json). A Round knows no pytest.
"""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field

from core.field_rules import written
from core.results import Incomplete, IncompleteKind, ModelEntry, RoundResults
from core.tags import is_provider_name, is_valid_tag
from core.vocabulary import LANGUAGE
from probes.round.cases import Case, CaseRecord, PlannedCase, ProbedCase, not_probed
from probes.round.contracts import AUTH_REASON
from probes.round.controls import (
    FileControls,
    control_dir,
    publish,
    unprobed_controls,
    unselected_controls,
)
from probes.round.engine import Engine, run_quietly
from probes.round.language_service import LanguageProcess, LocalLanguage, RemoteLanguage
from probes.round.planning import RoundPlan
from probes.round.record import build_results, write_json
from probes.round.settings import RoundSettings, snapshot_doc

# How long beyond the request deadline a worker waits for the controller's control verdict.
CONTROL_WAIT_MARGIN_S = 15.0


@dataclass(slots=True)
class Round:
    """Mutable state of one round in one process (the settings are replaced only to add the
    language process's address, before any probe starts)."""

    settings: RoundSettings
    cases: dict[str, PlannedCase]
    engine: Engine | None = None
    language_process: LanguageProcess | None = None
    records: dict[str, CaseRecord] = field(default_factory=dict)
    expected: list[str] = field(default_factory=list)      # case ids this round should report
    results: RoundResults | None = None                    # the round record, once written

    @classmethod
    def open(cls, settings: RoundSettings) -> Round:
        """The round's cases; the xdist controller starts the one language process, the round
        owner writes reports/discovery.json (replayable with --discovery-snapshot)."""
        opened = cls(settings, {c.id: c for c in settings.plan.cases()})
        plan = settings.plan
        if settings.role == "controller" and LANGUAGE in plan.contracts and plan.endpoints:
            opened.start_language_process()
        if settings.role != "worker":
            write_json(settings.reports / "discovery.json", snapshot_doc(settings))
        return opened

    def start_language_process(self) -> None:
        """Start the round's one language-judge process (probes/round/language_service.py)."""
        self.language_process = LanguageProcess()
        host, port = self.language_process.address
        self.settings = dataclasses.replace(
            self.settings, language_server=(host, port, self.language_process.authkey.hex()))

    def control_wait(self) -> float:
        probe = self.settings.config.probe
        return max(probe.request_deadline_seconds, probe.ttft_seconds) + CONTROL_WAIT_MARGIN_S

    def start(self, selected: list[Case], share: Collection[str] | None) -> None:
        """Start probing this process's cases at once: all of `selected`, or a worker's `share`."""
        settings = self.settings
        controls = _by_model(c for c in selected if c.control)
        missing = {m: tuple(f"{tag} {why}" for tag, why in v)
                   for m, v in unselected_controls(settings.plan, {c.id for c in selected}).items()}
        if settings.role == "single" and any(c.contract == LANGUAGE for c in selected):
            self.start_language_process()
            settings = self.settings
        if settings.role == "worker":
            mine = [c for c in selected if c.id in (share or ())]
            directory = control_dir(settings.reports, settings.round_id)
            remote = FileControls(directory, controls, wait_s=self.control_wait())
            overall = max(1, settings.config.concurrency.overall // settings.workers)
            engine = self._engine(controls, missing, overall=overall, remote=remote,
                                  on_result=lambda r: publish(directory, r) if r.record.control else None)
        else:
            mine = selected
            engine = self._engine(controls, missing, overall=settings.config.concurrency.overall)
        # Controls first: the refusal verdicts of every other host wait for them.
        mine.sort(key=lambda c: not c.control)
        self.engine = engine.start(mine, warm_language=any(c.contract == LANGUAGE for c in mine))

    def _engine(self, controls: dict[str, tuple[Case, ...]], missing: dict[str, tuple[str, ...]], *, overall: int,
                remote: FileControls | None = None,
                on_result: Callable[[ProbedCase], None] | None = None) -> Engine:
        settings = self.settings
        backend: LocalLanguage | RemoteLanguage
        if settings.language_server is not None:
            host, port, key = settings.language_server
            backend = RemoteLanguage((host, port), bytes.fromhex(key))
        else:
            backend = LocalLanguage()
        return Engine(client_settings=settings.client, probe=settings.config.probe, overall=overall,
                      per_provider=settings.config.concurrency.per_provider, control_cases=controls,
                      missing_controls=missing, language_backend=backend, remote_controls=remote,
                      on_result=on_result, round_id=settings.round_id)

    def collect(self, record: CaseRecord) -> None:
        """A case's record as the round owner received it (last one wins)."""
        self.records[record.case_id] = record

    def close(self) -> None:
        """Stop the engine and the language process; never raises."""
        if self.engine is not None:
            run_quietly(self.engine.close)
        if self.language_process is not None:
            run_quietly(self.language_process.close)

    def finish(self, *, interrupted: bool) -> RoundResults:
        """The round record (a case cut short reads as not run, with why the round is incomplete),
        written to reports/results.json; the control hand-off folder is removed."""
        settings = self.settings
        self.results = self.record(interrupted=interrupted)
        write_json(settings.reports / "results.json", written(self.results))
        run_quietly(lambda: shutil.rmtree(control_dir(settings.reports, settings.round_id), ignore_errors=True))
        return self.results

    def record(self, *, interrupted: bool) -> RoundResults:
        settings = self.settings
        incomplete = [Incomplete(IncompleteKind.DISCOVERY, f.message) for f in settings.plan.failures]
        if any(f.auth for f in settings.plan.failures) or any(r.auth_error for r in self.records.values()):
            incomplete.append(Incomplete(IncompleteKind.AUTH, AUTH_REASON))
        records = dict(self.records)
        for cid in self.expected:
            case = self.cases[cid]
            if cid not in records and isinstance(case, Case):
                records[cid] = CaseRecord(not_probed(case, "not run: the round was cut short"), probed=False)
        unprobed = [r for r in records.values() if not r.probed]
        if interrupted:
            incomplete.append(Incomplete(IncompleteKind.INTERRUPTED, "the round was interrupted"))
        if unprobed:
            incomplete.append(Incomplete(IncompleteKind.CUT_SHORT, f"{len(unprobed)} case(s) ended without a probe "
                                         f"result (cut short: -x, timeout, interrupt or harness error)"))
        if not records and not settings.plan.failures:
            incomplete.append(Incomplete(IncompleteKind.NOTHING_RAN, "no case ran (nothing selected?)"))
        ordered = [records[c] for c in self.cases if c in records]
        return build_results(
            round_id=settings.round_id, started_at=settings.started_at, finished_at=settings.clock.stamp(),
            upstream=settings.upstream,
            models=round_models(settings.plan),
            records=ordered, incomplete=incomplete,
            unprobed=unprobed_controls(settings.plan, set(self.expected), (r.case for r in ordered)),
            clock=settings.clock.kind, controls_source=settings.controls_source,
        )


def _by_model(cases: Iterable[Case]) -> dict[str, tuple[Case, ...]]:
    out: dict[str, list[Case]] = {}
    for c in cases:
        out.setdefault(c.model, []).append(c)
    return {m: tuple(v) for m, v in out.items()}


def round_models(plan: RoundPlan) -> dict[str, ModelEntry]:
    """The round's models: their discovered endpoints, as listed (limits) and noted; a model whose
    discovery failed is listed with none, so a shard that is incomplete because of it says which
    model it was (the judge then sets aside that model only: core.results.merge_shards)."""
    models = {m: ModelEntry(tuple(sorted({e.provider for e in eps})),
                            limits={e.provider: (e.context_length, e.max_completion_tokens) for e in eps},
                            notes=plan.notes.get(m, ()),
                            names={e.provider: e.provider_name for e in eps if is_provider_name(e.provider_name)})
              for m, eps in plan.endpoints.items()}
    for failure in plan.failures:
        if is_valid_tag(failure.model):
            models.setdefault(failure.model, ModelEntry())
    return models
