"""One round in one process: what it started, what it collected, and the record it ends with.

The pytest plugin (probes/pytest_plugin/hooks.py) is a thin adapter over a Round: it settles the
settings, then calls `Round.open` (the language-judge process, the replayable discovery.json),
`start` (the engine over the selected cases), `collect` (each case's record as pytest reported
it), `close` and `finish` (the round record, written to results.json). A Round knows no pytest.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from core.field_rules import written
from core.results import Incomplete, IncompleteKind, ModelEntry, RoundResults
from core.tags import is_provider_name, is_valid_tag
from core.times import parse_time
from core.vocabulary import LANGUAGE
from probes.round.cases import Case, CaseRecord, PlannedCase, not_probed
from probes.round.contracts import AUTH_REASON
from probes.round.controls import unprobed_controls, unselected_controls
from probes.round.engine import Engine, run_quietly
from probes.round.language_service import LanguageProcess
from probes.round.planning import RoundPlan
from probes.round.record import build_results, write_json
from probes.round.settings import RoundSettings, snapshot_doc

# How long beyond its requests' deadlines a case may wait (its sibling and control results).
CONTROL_WAIT_MARGIN_S = 15.0


@dataclass(slots=True)
class Round:
    """Mutable state of one round in one process."""

    settings: RoundSettings
    cases: dict[str, PlannedCase]
    engine: Engine | None = None
    language_process: LanguageProcess | None = None
    records: dict[str, CaseRecord] = field(default_factory=dict)
    expected: list[str] = field(default_factory=list)      # case ids this round should report
    results: RoundResults | None = None                    # the round record, once written

    @classmethod
    def open(cls, settings: RoundSettings) -> Round:
        """The round's cases and its language process; reports/discovery.json written (replayable
        with --discovery-snapshot)."""
        opened = cls(settings, {c.id: c for c in settings.plan.cases()})
        if LANGUAGE in settings.plan.contracts and settings.plan.endpoints:
            opened.language_process = LanguageProcess()
        write_json(settings.reports / "discovery.json", snapshot_doc(settings))
        return opened

    def start(self, selected: list[Case]) -> None:
        """Start probing the selected cases at once, in `start_order`."""
        settings = self.settings
        missing = {m: tuple(f"{tag} {why}" for tag, why in v)
                   for m, v in unselected_controls(settings.plan, {c.id for c in selected}).items()}
        language = any(c.contract == LANGUAGE for c in selected) and self.language_process is not None
        engine = Engine(client_settings=settings.client, probe=settings.config.probe,
                        overall=settings.config.concurrency.overall,
                        per_provider=settings.config.concurrency.per_provider,
                        control_cases=_by_model(c for c in selected if c.control), missing_controls=missing,
                        language_backend=self.language_process, round_id=settings.round_id)
        self.engine = engine.start(sorted(selected, key=start_order), warm_language=language)

    def collect(self, record: CaseRecord) -> None:
        """A case's record as pytest reported it (last one wins)."""
        self.records[record.case_id] = record

    def close(self) -> None:
        """Stop the engine and the language process; never raises."""
        if self.engine is not None:
            run_quietly(self.engine.close)
        if self.language_process is not None:
            run_quietly(self.language_process.close)

    def finish(self, *, interrupted: bool) -> RoundResults:
        """The round record (a case cut short reads as not run, with why the round is incomplete),
        written to reports/results.json."""
        self.results = self.record(interrupted=interrupted)
        write_json(self.settings.reports / "results.json", written(self.results))
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
        return build_results(RoundResults(
            round_id=settings.round_id, started_at=parse_time(settings.started_at, "started_at"),
            finished_at=parse_time(settings.clock.stamp(), "finished_at"), upstream=settings.upstream,
            models=round_models(settings.plan), incomplete=tuple(incomplete),
            unprobed_controls=tuple(unprobed_controls(settings.plan, set(self.expected), (r.case for r in ordered))),
            clock=settings.clock.kind, controls_source=settings.controls_source), ordered)


def start_order(case: Case) -> tuple[bool, float]:
    """The positive controls first (every other host's refusal verdict waits for them), then the
    slowest endpoints by their listed throughput, unlisted ones first: a round of more requests than
    concurrency.overall goes out in waves, and its longest requests then start in the first wave
    instead of trailing the last (benchmarks/round_scaling.py)."""
    return not case.control, case.endpoint.throughput_p50 or 0.0


def _by_model(cases: Iterable[Case]) -> dict[str, tuple[Case, ...]]:
    out: dict[str, list[Case]] = {}
    for c in cases:
        out.setdefault(c.model, []).append(c)
    return {m: tuple(v) for m, v in out.items()}


def round_models(plan: RoundPlan) -> dict[str, ModelEntry]:
    """The round's models: their discovered endpoints, as listed (limits) and noted; a model whose
    discovery failed is listed with none, so a round that is incomplete because of it says which
    model it was."""
    models = {m: ModelEntry(tuple(sorted({e.provider for e in eps})),
                            limits={e.provider: (e.context_length, e.max_completion_tokens) for e in eps},
                            notes=plan.notes.get(m, ()),
                            names={e.provider: e.provider_name for e in eps if is_provider_name(e.provider_name)})
              for m, eps in plan.endpoints.items()}
    for failure in plan.failures:
        if is_valid_tag(failure.model):
            models.setdefault(failure.model, ModelEntry())
    return models
