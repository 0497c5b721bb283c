"""`canary judge RESULTS.json...`: apply one round (several files = shards of one round).

Order of effects, chosen so a crash never leaves routing ahead of the record: read and validate
everything first (nothing is written if any file is refused), then write decisions.json, append
the audit log, replace the state file (the commit point), and finally notify.

Default `now` is the current UTC time (not the round's timestamps): expiries and the ladder are
about real time, and a round judged late must not resurrect suspensions that already ended.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from canary import audit, notify
from canary.history import recorder as history
from canary.commands._options import add_common, config_of, now_of
from canary.config import Config
from canary.state import fmt_time, load_state, policy_from_settings, save_state
from canary.store import StoreError, atomic_write_json, load_exclusions, read_json
from judge.exclusions import (
    BUILTIN,
    INCIDENT,
    effective_ignore,
    known_models,
    people_excluded,
    would_ignore,
)
from judge.policy import MODES
from judge.report import ReportError, RoundReport, merge_shards, parse_report
from judge.rules import RoundOrder, RoundOrderError, apply_round, check_round_order

DECISIONS_SCHEMA_VERSION = 1
DEFAULT_DECISIONS_FILE = "decisions.json"
EXIT_REFUSED = 2


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("judge", help="apply one round's results to the state (streaks, suspensions)")
    p.add_argument("results", nargs="+", type=Path, metavar="RESULTS.json", help="results file(s); several = shards")
    p.add_argument("--mode", choices=MODES, default=None, help="override canary.yaml's mode for this round")
    p.add_argument("--decisions-out", type=Path, default=None, metavar="PATH",
                   help="where to write decisions.json (default: <paths.reports>/decisions.json)")
    p.add_argument("--no-notify", action="store_true", help="do not print, summarise or post the decisions")
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
                     decisions_out=args.decisions_out, send=not args.no_notify)


def load_round(paths: Sequence[Path]) -> RoundReport:
    """Parse and merge the shard files; ReportError/StoreError name the file."""
    reports = []
    for path in paths:
        raw = read_json(path, "results file", "re-run the round or pass the right file")
        if raw is None:
            raise StoreError(f"{path}: no such results file")
        try:
            reports.append(parse_report(raw))
        except ReportError as exc:
            raise ReportError(f"{path}: {exc}") from None
    return merge_shards(reports, [str(p) for p in paths])


def run_judge(results: Sequence[Path], config: Config, *, now: datetime, mode: str,
              decisions_out: Path | None = None, send: bool = True,
              echo: Callable[[str], None] = print) -> int:
    """The whole command as a function (commit-back re-runs it after resetting to the remote)."""
    paths = config.paths
    try:
        report = load_round(results)
        state = load_state(paths.state)
        exclusions = load_exclusions(paths.builtin, BUILTIN) + load_exclusions(paths.incidents, INCIDENT)
        order = check_round_order(state, report)
    except (StoreError, ReportError, RoundOrderError) as exc:
        print(f"canary judge: {exc}", file=sys.stderr)
        return EXIT_REFUSED
    if order is RoundOrder.ALREADY_APPLIED:
        echo(f"canary judge: round {report.round_id} already applied; nothing changed")
        return 0
    policy = policy_from_settings(config.rules, config.languages)
    new_state, decisions = apply_round(state, report, policy, now=now, mode=mode,
                                       excluded=people_excluded(exclusions, now))
    gap = None
    if state.last_round is not None:
        gap = round((report.started_at - state.last_round.started_at).total_seconds() / 60, 1)
    models = known_models(exclusions, new_state, list(report.models) + list(config.models))
    doc: dict[str, Any] = {
        "schema_version": DECISIONS_SCHEMA_VERSION, "round_id": report.round_id, "mode": mode,
        "now": fmt_time(now), "gap_minutes": gap,
        "decisions": [audit.decision_to_json(d) for d in decisions],
        "ignore": {m: effective_ignore(m, exclusions, new_state, now) for m in models},
        "would_ignore": {m: would_ignore(m, exclusions, new_state, now) for m in models},
    }
    atomic_write_json(decisions_out or Path(paths.reports) / DEFAULT_DECISIONS_FILE, doc)
    audit.append_round(paths.audit, audit.rejected_lines(report.rejected, round_id=report.round_id, mode=mode, now=now)
                 + audit.decision_lines(decisions, round_id=report.round_id, mode=mode, now=now))
    save_state(paths.state, new_state)
    history.record_after_judge(paths, results, doc, now=now)  # evidence only: never fails the judge
    for rejected in report.rejected:
        echo(f"canary judge: warning: set aside upstream input ({rejected.model} {rejected.provider}): {rejected.problem}")
    if send:
        notify.notify(doc, audit_path=paths.audit, echo=echo)
    return 0
