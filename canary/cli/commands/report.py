"""`canary report`: render the Allure HTML report of the last round offline, trend included."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from canary.outputs import allure_html
from canary.state.results_files import read_decisions
from core.config import load_config
from core.errors import InputError
from judge.suspension.decisions import RoundDecisions


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "report", help="render the Allure HTML report (offline), carrying the trend across rounds",
        description="Render the Allure 2 report from the round's Allure results. The saved history is "
                    "copied in first and the new report's history saved after, so the trend grows by one "
                    "round per call. Needs the npm tools (`npm ci`) and Java 17.")
    p.add_argument("--results-dir", nargs="+", action="extend", type=Path, metavar="DIR",
                   help="Allure results folder(s), one per shard (default: <reports>/allure-results)")
    p.add_argument("--history-dir", type=Path, metavar="DIR",
                   help="where the trend is kept between rounds (default: <reports>/allure-history)")
    p.add_argument("--out", type=Path, metavar="DIR", help="report folder (default: <reports>/allure-report)")
    p.add_argument("--decisions", type=Path, metavar="FILE",
                   help="the judge's decisions.json, shown with their evidence cards (default: "
                        "<reports>/decisions.json when it exists)")
    p.add_argument("--single-file", action="store_true",
                   help="make <out>/index.html self-contained, so it opens from file:// without a server")
    p.set_defaults(func=run)


def build_from_environment() -> allure_html.Build:
    """Label the trend with the GitHub run (and link it) when running in Actions."""
    if os.environ.get("GITHUB_ACTIONS") == "true" and os.environ.get("GITHUB_RUN_ID"):
        url = "{}/{}/actions/runs/{}".format(os.environ.get("GITHUB_SERVER_URL", "https://github.com"),
                                             os.environ.get("GITHUB_REPOSITORY", ""), os.environ["GITHUB_RUN_ID"])
        return allure_html.Build(name="GitHub Actions canary round", url=url, kind="github")
    return allure_html.Build()


def report_decisions(path: Path | None, default: Path) -> RoundDecisions | None:
    """The judge's record of the round, or None when absent or unreadable (the report renders without it)."""
    try:
        doc = read_decisions(path or default)
    except (OSError, InputError) as exc:
        doc, problem = None, str(exc)
    else:
        problem = "no such file"
    if doc is None and path is not None:
        print(f"canary report: warning: {path} could not be read ({problem}); the report shows no decisions",
              file=sys.stderr)
    return doc


def run(args: argparse.Namespace) -> int:
    reports = load_config(args.config).paths.reports
    decisions = report_decisions(args.decisions, reports / "decisions.json")
    done = allure_html.render(
        args.results_dir or [reports / "allure-results"],
        history=args.history_dir or reports / "allure-history",
        out=args.out or reports / "allure-report",
        single_file=args.single_file,
        build=build_from_environment(),
        decisions=decisions,
    )
    opener = "open it from file://" if args.single_file else "serve it (`npx allure open`) or use --single-file"
    print(f"canary report: {done.results} cases, round #{done.build_order} of the trend -> {done.out}/index.html "
          f"({opener}); history saved in {done.history}")
    return 0
