"""`canary report`: render the Allure HTML report of the last round offline, trend included."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from canary.cli.commands._options import PATH, Invocation, config_option, pass_invocation
from canary.outputs import allure_html
from canary.state.results_files import read_decisions
from core.errors import InputError
from judge.suspension.decisions import RoundDecisions


@click.command(
    "report", short_help="render the Allure HTML report (offline), carrying the trend across rounds",
    help="Render the Allure 2 report from the round's Allure results. The saved history is "
         "copied in first and the new report's history saved after, so the trend grows by one "
         "round per call. Needs the npm tools (`npm ci`) and Java 17.")
@config_option
@click.option("--results-dir", is_flag=True, expose_value=False,
              help="marks the DIR arguments (optional): Allure results folder(s), rendered as one report (default: "
                   "<reports>/allure-results)")
@click.argument("results_dirs", nargs=-1, type=PATH, metavar="[DIR]...")
@click.option("--history-dir", type=PATH, metavar="DIR",
              help="where the trend is kept between rounds (default: <reports>/allure-history)")
@click.option("--out", type=PATH, metavar="DIR", help="report folder (default: <reports>/allure-report)")
@click.option("--decisions", "decisions_path", type=PATH, metavar="FILE",
              help="the judge's decisions.json, shown with their evidence cards (default: "
                   "<reports>/decisions.json when it exists)")
@click.option("--single-file", is_flag=True,
              help="make <out>/index.html self-contained, so it opens from file:// without a server")
@pass_invocation
def report(invocation: Invocation, results_dirs: tuple[Path, ...], history_dir: Path | None, out: Path | None,
           decisions_path: Path | None, single_file: bool) -> int:
    reports = invocation.config().paths.reports
    decisions = report_decisions(decisions_path, reports / "decisions.json")
    done = allure_html.render(
        list(results_dirs) or [reports / "allure-results"],
        history=history_dir or reports / "allure-history",
        out=out or reports / "allure-report",
        single_file=single_file,
        build=build_from_environment(),
        decisions=decisions,
    )
    opener = "open it from file://" if single_file else "serve it (`npx allure open`) or use --single-file"
    print(f"canary report: {done.results} cases, round #{done.build_order} of the trend -> {done.out}/index.html "
          f"({opener}); history saved in {done.history}")
    return 0


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
        decisions = read_decisions(path or default)
    except (OSError, InputError) as exc:
        decisions, problem = None, str(exc)
    else:
        problem = "no such file"
    if decisions is None and path is not None:
        print(f"canary report: warning: {path} could not be read ({problem}); the report shows no decisions",
              file=sys.stderr)
    return decisions
