"""`canary round`: one whole round on this machine — probe, judge, summary, Allure report.

This is the README's first command. It runs exactly the steps the scheduled workflow runs
(`canary probe`, `canary judge`, `canary summary`, `canary report`), in one process, so what a
developer sees locally is what the workflow does.

Without OPENROUTER_API_KEY the round runs against the bundled simulator, and the judge's
files live in <reports>/simulator-state/ instead of state/: a demo round must never write
suspensions of simulated hosts into the state the chat backend reads. Each simulator round
advances the simulator's round number, so scenarios that change over time play out, and runs
on a virtual clock: it starts 30 minutes after the previous simulator round's virtual start
(the first one at the real time), and the judge judges it at its virtual end. So two rounds in
a row are two consecutive half-hourly rounds to the judge, as in production, whatever time
passed between them. A round against a real upstream always runs and is judged on real time.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from canary import allure_html, summary
from core.config import Config, load_config
from core.upstream import key_in_environment
from core.results import ResultsError, read_results

SIMULATOR_STATE_DIR = "simulator-state"
# The virtual time between two simulator rounds: the production schedule's half hour.
SIMULATOR_ROUND_INTERVAL = timedelta(minutes=30)


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "round", help="run one whole round: probe, judge, print the summary, render the report",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", default=argparse.SUPPRESS, help="configuration file (default: canary.yaml)")
    p.add_argument("--model", action="append", default=None, help="model id to probe (repeatable)")
    p.add_argument("-k", dest="keyword", default=None, metavar="EXPR", help="pytest -k expression, e.g. a tag")
    p.add_argument("-m", dest="marker", default=None, metavar="CONTRACT", help="pytest -m expression over contracts")
    p.add_argument("--workers", type=int, default=0, metavar="N", help="pytest-xdist workers (default 0: one process)")
    p.add_argument("--scenario", default=None, metavar="FILE", help="simulator scenario (only without a key)")
    p.add_argument("--seed", type=int, default=None, help="simulator seed (default: the round number)")
    p.add_argument("--mode", choices=("observe", "enforce"), default=None, help="override canary.yaml's mode")
    p.add_argument("--now", default=None, metavar="ISO8601", help="judge at this time (default: now)")
    p.add_argument("--reports", default=None, metavar="DIR", help="reports directory (default: paths.reports)")
    p.add_argument("--no-report", action="store_true", help="skip rendering the Allure HTML report")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from canary.cli import main as canary  # the same entry point the workflow calls, step by step

    config_path = getattr(args, "config", None)
    config = load_config(config_path)
    reports = Path(args.reports or config.paths.reports)
    on_simulator = key_in_environment() is None
    state, audit = _state_files(config, reports, on_simulator)
    common = ["--config", config_path] if config_path else []

    probe = [*common, "probe", "--reports", str(reports)]
    for model in args.model or ():
        probe += ["--model", model]
    if args.keyword:
        probe += ["-k", args.keyword]
    if args.marker:
        probe += ["-m", args.marker]
    if args.workers:
        probe += ["--workers", str(args.workers)]
    virtual, first = _virtual_start(state) if on_simulator else (None, False)
    if on_simulator:
        number = _rounds_applied(state) + 1
        probe += ["--simulator", "--round", str(number), "--seed", str(args.seed if args.seed is not None else number)]
        if args.scenario:
            probe += ["--scenario", args.scenario]
    probe += ["--", f"--canary-state={state}"]
    if virtual is not None:
        probe.append(f"--canary-virtual-time={_stamp(virtual)}")
    probe_rc = canary(probe)
    results = reports / "results.json"
    if probe_rc == 2 or not results.exists():
        print("canary round: the probes produced no results.json; nothing to judge", file=sys.stderr)
        return 2

    decisions = reports / "decisions.json"
    judge = [*common, "judge", str(results), "--state", str(state), "--audit", str(audit),
             "--decisions-out", str(decisions), "--no-notify"]
    if args.mode:
        judge += ["--mode", args.mode]
    round_doc = _read_json(results)
    now = args.now or (_virtual_end(round_doc) if virtual is not None else None)
    if now:
        judge += ["--now", now]
    judge_rc = canary(judge)

    try:
        record = read_results(round_doc, str(results))
    except ResultsError:
        record = None
    if record is None:
        print(f"canary round: {results} is not a readable round report; nothing to summarise", file=sys.stderr)
        return 2
    print()
    print(summary.to_text(record, _read_json(decisions) if judge_rc == 0 else None))
    if virtual is not None:
        when = ("the first simulator round starts at the real time" if first else
                f"{int(SIMULATOR_ROUND_INTERVAL.total_seconds() // 60)} min after the previous simulator round")
        print(f"\n(simulator round on virtual time: started {_stamp(virtual)}, {when}; "
              f"the judge's state is in {state.parent}/, not in {config.paths.state.parent}/)")
    if not args.no_report:
        _render_report(reports, _read_json(decisions) if judge_rc == 0 else None)
    return max(probe_rc, judge_rc)


def _state_files(config: Config, reports: Path, on_simulator: bool) -> tuple[Path, Path]:
    if not on_simulator:
        return config.paths.state, config.paths.audit
    folder = reports / SIMULATOR_STATE_DIR
    return folder / config.paths.state.name, folder / config.paths.audit.name


def _rounds_applied(state: Path) -> int:
    """How many rounds the judge has applied to this (simulator) state: the next round's number."""
    try:
        doc = json.loads(state.read_text(encoding="utf-8"))
        return len(doc.get("applied_rounds") or [])
    except (OSError, ValueError, AttributeError):
        return 0


def _virtual_start(state: Path) -> tuple[datetime, bool]:
    """A simulator round's virtual start: half an hour after the last applied one, else now (first=True)."""
    doc = _read_json(state) or {}
    last = doc.get("last_round")
    try:
        started = datetime.fromisoformat(str(last["started_at"]).replace("Z", "+00:00"))  # type: ignore[index]
    except (TypeError, KeyError, ValueError):
        return datetime.now(UTC).replace(microsecond=0), True
    return (started if started.tzinfo else started.replace(tzinfo=UTC)) + SIMULATOR_ROUND_INTERVAL, False


def _virtual_end(doc: dict[str, Any] | None) -> str | None:
    """When the judge judges a virtual-time round: its recorded (virtual) end."""
    if doc is None or doc.get("clock") != "virtual":
        return None
    end = doc.get("finished_at") or doc.get("started_at")
    return str(end) if end else None


def _stamp(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _render_report(reports: Path, decisions: dict[str, Any] | None = None) -> None:
    try:
        done = allure_html.render([reports / "allure-results"], history=reports / "allure-history",
                             out=reports / "allure-report", single_file=True, decisions=decisions)
    except allure_html.AllureError as exc:
        print(f"\n(Allure report not rendered: {exc})")
        return
    print(f"\nAllure report (round #{done.build_order} of its trend): {done.out}/index.html")
