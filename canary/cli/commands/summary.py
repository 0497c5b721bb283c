"""`canary summary`: print the round summary; append it to the GitHub job summary on request."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import click

from canary.cli.commands._options import PATH, Invocation, config_option, pass_invocation
from canary.outputs import summary
from canary.state.results_files import read_decisions
from core.errors import InputError
from core.results_read import read_results
from judge.suspension.decisions import RoundDecisions


@click.command(
    "summary", short_help="print the round summary (outcomes, decisions, provider.ignore)",
    help="Print one round's summary: model x provider x contract outcomes with time to first "
         "token, the judge's decisions and the effective provider.ignore. Without a decisions "
         "file the outcomes still print.")
@config_option
@click.option("--results", is_flag=True, expose_value=False,
              help="marks the RESULTS.json argument (optional): results.json of the round "
                   "(default: <reports>/results.json)")
@click.argument("results_path", required=False, type=PATH, metavar="[RESULTS.json]")
@click.option("--decisions", "decisions_path", type=PATH, metavar="PATH",
              help="decisions.json written by `canary judge` (default: <reports>/decisions.json if present)")
@click.option("--markdown", is_flag=True, help="print Markdown instead of the terminal table")
@click.option("--step-summary", is_flag=True,
              help="also append the Markdown to the file named by $GITHUB_STEP_SUMMARY (GitHub Actions)")
@pass_invocation
def summary_command(invocation: Invocation, results_path: Path | None, decisions_path: Path | None,
                    markdown: bool, step_summary: bool) -> int:
    reports = invocation.config().paths.reports
    path = results_path or reports / "results.json"
    decisions = _decisions(decisions_path or reports / "decisions.json", explicit=decisions_path is not None)
    try:
        results = read_results(_load(path), str(path))
    except (OSError, ValueError, TypeError) as exc:
        print(f"canary summary: {exc}", file=sys.stderr)
        return 2
    text = summary.to_markdown(results, decisions)
    sys.stdout.write(text if markdown else summary.to_text(results, decisions))
    if step_summary:
        target = os.environ.get("GITHUB_STEP_SUMMARY")
        if not target:
            print("canary summary: --step-summary: $GITHUB_STEP_SUMMARY is not set (outside GitHub Actions); "
                  "printed only", file=sys.stderr)
        else:
            with open(target, "a", encoding="utf-8") as fh:
                fh.write(text + "\n")
    return 0


def _load(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise OSError(f"{path}: no such results file (run `canary probe` first, or pass --results)") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    if not isinstance(data, dict):
        raise TypeError(f"{path}: expected a JSON object (a results.json of `canary probe`)")
    return data


def _decisions(path: Path, *, explicit: bool) -> RoundDecisions | None:
    """The judge's decisions, or None: the summary must print even when the judge has not run."""
    try:
        decisions = read_decisions(path)
    except (OSError, InputError) as exc:
        print(f"canary summary: {exc}; summarising the outcomes only", file=sys.stderr)
        return None
    if decisions is None and explicit:
        print(f"canary summary: {path}: no decisions file; summarising the outcomes only", file=sys.stderr)
    return decisions
