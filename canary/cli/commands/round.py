"""`canary round`: one whole round on this machine — probe, judge, summary, Allure report.

This is the README's first command. It runs exactly the steps the scheduled workflow runs
(`canary probe`, `canary judge`, `canary summary`, `canary report`), in one process, so what a
developer sees locally is what the workflow does (canary/round/local_round.py run_round).

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
from pathlib import Path
from typing import Any

from canary.round.local_round import RoundOptions, run_round


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
    return run_round(RoundOptions(
        config_path=getattr(args, "config", None), reports=Path(args.reports) if args.reports else None,
        models=tuple(args.model or ()), keyword=args.keyword, marker=args.marker, workers=args.workers,
        scenario=args.scenario, seed=args.seed, mode=args.mode, now=args.now, render_report=not args.no_report))
