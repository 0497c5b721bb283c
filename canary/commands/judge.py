"""`canary judge RESULTS.json...`: apply one round (several files = shards of one round).

Order of effects, chosen so a crash never leaves routing ahead of the record: read and validate
everything first (nothing is written if any file is refused), then write decisions.json, append
the audit log, replace the state file (the commit point), and finally notify. The scheduled
workflow passes --no-notify and announces after `canary commit` instead (`canary announce`), so
people hear only about decisions that were committed, never a judgement made on stale state.

Refused (exit 2, nothing written): a file that cannot be trusted, a round older than the last one
applied, and a round probed against the bundled simulator applied to a state outside a
`simulator-state/` folder (the real state the chat backend reads) unless --allow-simulator.

--expect-models names the models the round planned to probe (the workflow's plan job): a planned
model with no results (its probe job was cancelled, timed out or failed before writing a shard)
makes the round incomplete for that model only; nothing moves for it and the decisions say why.

An already-applied round changes nothing, but its decisions file is rewritten from the state and
from that round's lines in the audit log, so a re-run (or a run that lost the race to a
concurrent one) reports what was actually committed.

Default `now` is the current UTC time (not the round's timestamps): expiries and the ladder are
about real time, and a round judged late must not resurrect suspensions that already ended.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from canary import audit, notify
from canary.commands._options import add_common, config_of, now_of
from canary.commands.round import SIMULATOR_STATE_DIR
from canary.history import recorder as history
from canary.judge_files import load_state, save_state
from core.config import Config
from core.policy import MODES
from core.store import StoreError, atomic_write_json
from canary.judge_files import load_exclusions
from core.times import fmt_time
from canary.results_files import load_round
from core.results import RoundResults
from judge.decisions import Action
from judge.exclusions import (
    BUILTIN,
    INCIDENT,
    Exclusion,
    effective_ignore,
    known_models,
    people_excluded,
    would_ignore,
)
from judge.report import (
    ReportError,
    expect_models,
    missing_model_decisions,
)
from judge.rules import RoundOrder, RoundOrderError, apply_round, check_round_order
from judge.state import JudgeState

DECISIONS_SCHEMA_VERSION = 1
DEFAULT_DECISIONS_FILE = "decisions.json"
EXIT_REFUSED = 2
SIMULATOR = "simulator"
_DECISION_ACTIONS = frozenset(a.value for a in Action)
_DECISION_FIELDS = ("model", "provider", "action", "rule", "reason", "evidence", "until", "rung", "card",
                    "weak_evidence")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("judge", help="apply one round's results to the state (streaks, suspensions)")
    p.add_argument("results", nargs="*", type=Path, metavar="RESULTS.json", help="results file(s); several = shards")
    p.add_argument("--mode", choices=MODES, default=None, help="override canary.yaml's mode for this round")
    p.add_argument("--decisions-out", type=Path, default=None, metavar="PATH",
                   help="where to write decisions.json (default: <paths.reports>/decisions.json)")
    p.add_argument("--no-notify", action="store_true",
                   help="do not print, summarise or post the decisions (the workflow runs `canary announce` "
                        "after `canary commit` instead)")
    p.add_argument("--expect-models", default=None, metavar="M1,M2",
                   help="the models this round planned to probe (comma separated): one without results makes "
                        "the round incomplete for that model only")
    p.add_argument("--allow-simulator", action="store_true",
                   help=f"apply a round probed against the bundled simulator to a state outside a "
                        f"{SIMULATOR_STATE_DIR}/ folder (only for a scratch copy of the state)")
    add_common(p)
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    try:
        now = now_of(args)
    except ReportError as exc:
        print(f"canary judge: {exc}", file=sys.stderr)
        return EXIT_REFUSED
    config = config_of(args)
    return run_judge(args.results, config, now=now, mode=args.mode or config.mode,
                     decisions_out=args.decisions_out, send=not args.no_notify,
                     expect=model_list(args.expect_models), allow_simulator=args.allow_simulator)


def model_list(text: str | None) -> tuple[str, ...] | None:
    """--expect-models as a tuple (None when not given; an empty value plans no model)."""
    return None if text is None else tuple(m for m in re.split(r"[,\s]+", text) if m)


def refuse_simulator_round(report: RoundResults, state_path: Path, allowed: bool) -> None:
    """ReportError when a simulator round would be applied to the real state.

    An absent secret arrives in GitHub Actions as an empty string; a round probed against the
    bundled simulator must never put suspensions of fictional hosts into the state the chat
    backend reads, nor into the audit log and report people trust.
    """
    if SIMULATOR not in report.upstreams() or allowed or Path(state_path).parent.name == SIMULATOR_STATE_DIR:
        return
    raise ReportError(
        f"round {report.round_id} was probed against the bundled simulator (upstream: simulator), and "
        f"{state_path} is not a simulator state (a {SIMULATOR_STATE_DIR}/ folder): its decisions would reach the "
        "state the chat backend reads. Refused; nothing was written. Give the probe OPENROUTER_API_KEY, judge "
        f"simulator rounds with `canary round` (it keeps them in <reports>/{SIMULATOR_STATE_DIR}/), or pass "
        "--allow-simulator if this state is a scratch copy")


def run_judge(results: Sequence[Path], config: Config, *, now: datetime, mode: str,
              decisions_out: Path | None = None, send: bool = True,
              echo: Callable[[str], None] = print, expect: Sequence[str] | None = None,
              allow_simulator: bool = False) -> int:
    """The whole command as a function (commit-back re-runs it after resetting to the remote)."""
    paths = config.paths
    out = decisions_out or Path(paths.reports) / DEFAULT_DECISIONS_FILE
    if not results:
        planned = (f"none of the planned models ({', '.join(expect)}) left a shard, so every probe job failed "
                   "(see their logs); ") if expect else ""
        print(f"canary judge: no results files given; {planned}nothing was judged", file=sys.stderr)
        return EXIT_REFUSED
    try:
        report = load_round(results)
        if expect is not None:
            report = expect_models(report, expect)
        refuse_simulator_round(report, paths.state, allow_simulator)
        state = load_state(paths.state)
        exclusions = load_exclusions(paths.builtin, BUILTIN) + load_exclusions(paths.incidents, INCIDENT)
        order = check_round_order(state, report)
    except (StoreError, ReportError, RoundOrderError) as exc:
        print(f"canary judge: {exc}", file=sys.stderr)
        return EXIT_REFUSED
    how = {"upstream": report.upstream, "expected_models": None if expect is None else list(expect),
           "allow_simulator": allow_simulator}
    if order is RoundOrder.ALREADY_APPLIED:
        atomic_write_json(out, _applied_doc(report, state, exclusions, config, now=now, mode=mode, how=how))
        echo(f"canary judge: round {report.round_id} already applied; nothing changed "
             f"(decisions file {out} rewritten from the state and the audit log)")
        return 0
    policy = config.rules
    new_state, decisions = apply_round(state, report, policy, now=now, mode=mode,
                                       excluded=people_excluded(exclusions, now))
    decisions = missing_model_decisions(report) + decisions
    gap = None
    if state.last_round is not None:
        gap = round((report.started_at - state.last_round.started_at).total_seconds() / 60, 1)
    doc = _doc(report, new_state, exclusions, config, now=now, mode=mode, gap=gap, how=how, already_applied=False,
               decisions=[audit.decision_to_json(d) for d in decisions])
    atomic_write_json(out, doc)
    audit.append_round(paths.audit, audit.rejected_lines(report.rejected, round_id=report.round_id, mode=mode, now=now)
                       + audit.decision_lines(decisions, round_id=report.round_id, mode=mode, now=now))
    save_state(paths.state, new_state)
    history.record_after_judge(paths, results, doc, now=now)  # evidence only: never fails the judge
    for rejected in report.rejected:
        echo(f"canary judge: warning: set aside upstream input ({rejected.model} {rejected.provider}): {rejected.problem}")
    if send:
        notify.notify(doc, audit_path=paths.audit, echo=echo)
    return 0


def _doc(report: RoundResults, state: JudgeState, exclusions: tuple[Exclusion, ...], config: Config, *,
         now: datetime, mode: str, gap: float | None, how: dict[str, Any], already_applied: bool,
         decisions: list[dict[str, Any]], decided_at: str | None = None) -> dict[str, Any]:
    models = known_models(exclusions, state, [*report.models, *report.missing, *config.models])
    return {
        "schema_version": DECISIONS_SCHEMA_VERSION, "round_id": report.round_id, "mode": mode,
        "now": decided_at or fmt_time(now), "gap_minutes": gap, "already_applied": already_applied, **how,
        "decisions": decisions,
        "ignore": {m: effective_ignore(m, exclusions, state, now) for m in models},
        "would_ignore": {m: would_ignore(m, exclusions, state, now) for m in models},
    }


def _applied_doc(report: RoundResults, state: JudgeState, exclusions: tuple[Exclusion, ...], config: Config, *,
                 now: datetime, mode: str, how: dict[str, Any]) -> dict[str, Any]:
    """The decisions file of a round the state already holds: its decisions from the audit log, the
    effective lists from the state as it is now. `now` stays the time the round was decided, so a
    re-apply decides the same way."""
    records, _ = audit.read(config.paths.audit)
    mine = [r for r in records if r.get("round_id") == report.round_id and r.get("action") in _DECISION_ACTIONS]
    decided_mode = next((r["mode"] for r in mine if r.get("mode") in MODES), state.mode or mode)
    decided_at = next((r["time"] for r in mine if isinstance(r.get("time"), str)), None)
    decisions = [{k: r[k] for k in _DECISION_FIELDS if k in r} for r in mine]
    return _doc(report, state, exclusions, config, now=now, mode=decided_mode, gap=None, how=how,
                already_applied=True, decisions=decisions, decided_at=decided_at)
