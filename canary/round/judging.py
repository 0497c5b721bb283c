"""Applying one round to the judge's files, as a function: `run_judge(JudgeRequest) -> JudgeOutcome`.

A round it refuses (nothing written) raises RoundRefused (canary/round/refusal.py) with exit 2.

The outcome carries the judge's record of the round (judge.suspension.decisions.RoundDecisions,
written to decisions.json): the caller in the same process (`canary round`) renders from it
instead of reading the file back; the request may carry the round record already read
(`JudgeRequest.results`), so a round is parsed once per process.

`canary judge` is this function behind its click command; `canary commit` calls it again (after resetting
to the remote) to re-apply a round, and `canary round` calls it after probing. The order of
effects and the refusals are documented in canary/cli/commands/judge.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

from canary.history import recorder as history
from canary.integrations import notify
from canary.round.refusal import RoundRefused
from canary.state import audit
from canary.state.judge_files import load_state, refuse_future_times, save_state
from canary.state.maintenance import load_maintenance
from canary.state.production_files import ProductionFolder, read_production
from canary.state.results_files import load_round
from canary.state.silences import silences_or_none
from core.config import Config
from core.field_rules import written
from core.layer_files import read_layers
from core.layers import PEOPLE_LAYERS, Exclusion
from core.policy import Mode
from core.production import ProductionRecord
from core.results import ResultsError, RoundResults
from core.store import StoreError, atomic_write_json
from judge.suspension.decisions import (
    Action,
    Decision,
    RequestRecord,
    RoundDecisions,
)
from judge.suspension.exclusions import ignore_lists
from judge.suspension.planned import expect_models, missing_model_decisions
from judge.suspension.rules import RoundOrder, RoundOrderError, check_round_order, judge_round
from judge.suspension.state import JudgeState

DEFAULT_DECISIONS_FILE = "decisions.json"
# Where `canary round` keeps the judge's files of simulator rounds, under the reports folder: a
# simulator round is applied to no state outside such a folder (refuse_simulator_round).
SIMULATOR_STATE_DIR = "simulator-state"
EXIT_REFUSED = 2
SIMULATOR = "simulator"
_DECISION_ACTIONS = frozenset(a.value for a in Action)


@dataclass(frozen=True, slots=True)
class JudgeRequest:
    """One round to apply: its results file (None: the round left none), the configuration, and how."""

    results_path: Path | None
    config: Config
    now: datetime
    mode: Mode | None = None  # override canary.yaml's mode for this round (None: the configured one)
    decisions_out: Path | None = None  # default: <paths.reports>/decisions.json
    send: bool = True  # print, summarise and post the decisions
    expect: tuple[str, ...] | None = None  # the models the round planned to probe
    allow_simulator: bool = False  # a simulator round may reach a state outside simulator-state/
    # The record of `results_path` already read (the process that probed the round holds it):
    # judged instead of reading the file again.
    results: RoundResults | None = None
    # The state in config.paths.state as this process read it through its codec (`canary round`
    # reads a simulator state before probing, and nothing writes it in between): the judge
    # applies the round to it instead of reading the file again (None: the judge reads it).
    state: JudgeState | None = None
    # A chat backend's production records, already read (core/production.py): evidence on the
    # cards, and confirmations and the rule of judge/suspension/production.py.
    production: tuple[ProductionRecord, ...] = ()
    production_dir: Path | None = None  # a folder of production records (--production): read, refused ones named


@dataclass(frozen=True, slots=True)
class JudgeOutcome:
    """How applying the round ended (a refusal raises RoundRefused instead): the judge's record of it."""

    decisions: RoundDecisions  # the judge's record of the round, as written to decisions.json
    state: JudgeState          # the judge's state with the round applied
    production: ProductionFolder | None = None  # the production records the round read (--production)


def model_list(text: str | None) -> tuple[str, ...] | None:
    """--expect-models as a tuple (None when not given; an empty value plans no model)."""
    return None if text is None else tuple(m for m in re.split(r"[,\s]+", text) if m)


def refuse_simulator_round(results: RoundResults, state_path: Path, allowed: bool) -> None:
    """ResultsError when a simulator round would be applied to the real state.

    An absent secret arrives in GitHub Actions as an empty string; a round probed against the
    bundled simulator must never put suspensions of fictional hosts into the state the chat
    backend reads, nor into the audit log and report people trust.
    """
    if SIMULATOR not in results.upstreams() or allowed or Path(state_path).parent.name == SIMULATOR_STATE_DIR:
        return
    raise ResultsError(
        f"round {results.round_id} was probed against the bundled simulator (upstream: simulator), and "
        f"{state_path} is not a simulator state (a {SIMULATOR_STATE_DIR}/ folder): its decisions would reach the "
        "state the chat backend reads. Refused; nothing was written. Give the probe OPENROUTER_API_KEY, judge "
        f"simulator rounds with `canary round` (it keeps them in <reports>/{SIMULATOR_STATE_DIR}/), or pass "
        "--allow-simulator if this state is a scratch copy")


def run_judge(request: JudgeRequest, *, echo: Callable[[str], None] = print) -> JudgeOutcome:
    """Apply one round: validate everything, then decisions.json, the audit log, the state, notify.

    Raises RoundRefused (exit 2, nothing written) for a file that cannot be trusted, a round older
    than the last one applied, a simulator round bound for the real state, or no results at all."""
    results_path, config, now, expect = request.results_path, request.config, request.now, request.expect
    mode, paths = request.mode or config.mode, config.paths
    out = request.decisions_out or Path(paths.reports) / DEFAULT_DECISIONS_FILE
    if results_path is None:
        raise _no_results(expect)
    try:
        state = load_state(paths.state) if request.state is None else request.state
        refuse_future_times(state, paths.state, now)  # a time after `now` (a clock set ahead) refuses the round
        judged = results = request.results or load_round(results_path)
        if expect is not None:
            results = expect_models(results, expect)
        refuse_simulator_round(results, paths.state, request.allow_simulator)
        audit.check_appendable(paths.audit)
        exclusions = read_layers(paths.layer_paths(PEOPLE_LAYERS))  # the suspensions: `state`, read above
        order = check_round_order(state, results, now=now)
    except (StoreError, ResultsError, RoundOrderError) as exc:
        raise RoundRefused(str(exc), EXIT_REFUSED) from exc
    production = None if request.production_dir is None else _production(request.production_dir, now, echo)
    records = request.production + (production.records if production is not None else ())
    how = RequestRecord(upstream=results.upstream, expected_models=expect, allow_simulator=request.allow_simulator)
    if order is RoundOrder.ALREADY_APPLIED:
        decisions = _applied_record(results, state, exclusions, config, now=now, mode=mode, how=how)
        atomic_write_json(out, written(decisions))
        # A judge killed between the state and the history write left the round out of the
        # history: recording is idempotent, so the re-run records it (or finds it recorded).
        history.record_after_judge(paths, judged, decisions, now=now, compact_days=False)
        echo(f"canary judge: round {results.round_id} already applied; nothing changed "
             f"(decisions file {out} rewritten from the state and the audit log)")
        return JudgeOutcome(decisions, state, production)
    policy = replace(config.rules, mode=mode)  # the round's mode: canary.yaml's, or the request's override
    new_state, changes, leaks = judge_round(state, results, policy, now=now, people=exclusions,
                                            maintenance=load_maintenance(paths.maintenance), production=records)
    changes = missing_model_decisions(results) + changes
    gap = None if state.last_round is None else round(
        (results.started_at - state.last_round.started_at).total_seconds() / 60, 1)
    decisions = _record(RoundDecisions(round_id=results.round_id, mode=mode, now=now, gap_minutes=gap, request=how,
                                       decisions=tuple(changes), leaks=leaks), results, new_state, exclusions, config)
    atomic_write_json(out, written(decisions))
    round_id = results.round_id
    audit.append_round(paths.audit, audit.rejected_lines(results.rejected, round_id=round_id, mode=mode, now=now)
                       + audit.decision_lines(changes, round_id=round_id, mode=mode, now=now))
    save_state(paths.state, new_state)
    history.record_after_judge(paths, judged, decisions, now=now)  # evidence only: never fails the judge
    for rejected in results.rejected:
        echo(f"canary judge: warning: set aside upstream input ({rejected.model} {rejected.provider}): "
             f"{rejected.problem}")
    if request.send:
        notify.notify(decisions, audit_path=paths.audit, echo=echo, silences=silences_or_none(paths.silences, echo))
    return JudgeOutcome(decisions, new_state, production)


def _no_results(expect: tuple[str, ...] | None) -> RoundRefused:
    """Two causes look alike: the probe job failed, or this is a re-run of a run whose results
    expired (retention-days: 1), which download-artifact then finds none of."""
    planned = (f"none of the planned models ({', '.join(expect)}) has results: the probe job failed "
               "(see its log), or this is a re-run more than a day after its run and the results "
               "artifact expired (retention-days: 1; start a new run instead); ") if expect else ""
    return RoundRefused(f"no results file given; {planned}nothing was judged", EXIT_REFUSED)


def _production(folder: Path, now: datetime, echo: Callable[[str], None]) -> ProductionFolder:
    """The folder's records in the round's evidence window; each refused one named, the round judged without it."""
    found = read_production(folder, now=now)
    for path, why in found.refused:
        echo(f"canary judge: warning: production record refused, judged without it: {path}: {why}")
    echo(f"canary judge: production evidence: {len(found.records)} record(s) from {len(found.exporters)} "
         f"exporter(s) in {folder}")
    return found


def _record(decided: RoundDecisions, results: RoundResults, state: JudgeState, exclusions: tuple[Exclusion, ...],
            config: Config) -> RoundDecisions:
    """`decided` with the provider.ignore lists and the production evidence `state` leaves."""
    ignore, would = ignore_lists(exclusions, state, decided.now, [*results.models, *results.missing, *config.models])
    production = {m: lines for m, providers in sorted(state.models.items())
                  if (lines := {p: ps.production for p, ps in sorted(providers.items()) if ps.production})}
    return replace(decided, ignore=ignore, would_ignore=would, production=production)


def _applied_record(results: RoundResults, state: JudgeState, exclusions: tuple[Exclusion, ...], config: Config, *,
                    now: datetime, mode: Mode, how: RequestRecord) -> RoundDecisions:
    """The decisions file of a round the state already holds, as the judge wrote it then.

    Its decisions come from the audit log; its `now` and its effective lists are those of the time
    the round was decided (the audit lines' time, else the state's record of its last round), so a
    re-run on the same round, hours or a year later, rewrites the same file. Only a round decided
    before that time was kept, with no decision to date it, falls back to the request's `now`.
    """
    mine = [line for line in audit.read(config.paths.audit).lines
            if line.round_id == results.round_id and line.action in _DECISION_ACTIONS]
    decided_mode = next((line.mode for line in mine if line.mode is not None), state.mode or mode)
    decided_at = _decided_at(results, state, mine) or now
    return _record(RoundDecisions(round_id=results.round_id, mode=decided_mode, now=decided_at, already_applied=True,
                                  request=how, decisions=tuple(_logged_decisions(mine))),
                   results, state, exclusions, config)


def _logged_decisions(lines: list[audit.AuditLine]) -> list[Decision]:
    """The decisions of audit lines (a line that is not one, hand-edited or torn, is left out of
    the rewritten file; the audit log itself keeps it)."""
    return [decision for decision in (line.decision() for line in lines) if decision is not None]


def _decided_at(results: RoundResults, state: JudgeState, audit_lines: list[audit.AuditLine]) -> datetime | None:
    if audit_lines:
        return audit_lines[0].at
    last = state.last_round
    if last is not None and last.round_id == results.round_id:
        return last.decided_at
    return None
