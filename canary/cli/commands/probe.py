"""`canary probe`: run one round (`pytest probes`) and say where the reports are.

Without OPENROUTER_API_KEY the bundled simulator is started as a subprocess (the same one
`canary sim` serves; a subprocess keeps its timing independent of the round's own CPU load)
and the round points OPENROUTER_BASE_URL at it with a dummy key. Inside GitHub Actions
(GITHUB_ACTIONS=true) a missing key is an error instead: an absent secret arrives there as an
empty string, usually because the schedule started before the `canary` environment and its
secret existed, and a simulator round must not pass for the real one. --simulator (or
--scenario) asks for the simulator on purpose, anywhere, with or without a key.

--state-checkout DIR reads the language plan from a checkout of the state branch (the judge's
files live there, not in the main checkout): DIR/<paths.state>; absent before the first round.

\b
Exit codes: quality failures are the normal business of a round, so
  0  the round completed (whatever the hosts did);
  1  the round is incomplete (discovery failed, cut short, nothing selected): the judge will
     change no streak for it;
  2  the round could not run (configuration, usage or internal error, no results.json);
  3  the upstream refused the API key.
"""

from __future__ import annotations

from pathlib import Path

import click

from canary.cli.commands._options import PATH, Invocation, config_option, pass_invocation, selection_options
from canary.round.probing import ProbeOptions, run_probe

DOC = __doc__ or ""


@click.command("probe", help=DOC,
               short_help="run one round: probe every endpoint pinned, write the reports")
@config_option
@selection_options
@click.option("--simulator", is_flag=True,
              help="probe the bundled simulator on purpose (even with OPENROUTER_API_KEY, even in GitHub Actions)")
@click.option("--scenario", default=None, metavar="FILE", help="simulator scenario (implies --simulator)")
@click.option("--state-checkout", default=None, metavar="DIR",
              help="a checkout of the state branch: read the language plan from DIR/<paths.state>")
@click.option("--seed", type=int, default=0, help="simulator seed (default 0)")
@click.option("--round", "round_number", type=int, default=1, help="simulator round number (default 1)")
@click.option("--reports", type=PATH, default=None, metavar="DIR", help="reports directory (default: paths.reports)")
@click.option("--discovery-snapshot", default=None, metavar="FILE", help="replay a saved discovery.json")
@click.argument("pytest_args", nargs=-1, type=click.UNPROCESSED, metavar="[-- PYTEST OPTIONS]")
@pass_invocation
def probe(invocation: Invocation, models: tuple[str, ...], keyword: str | None, marker: str | None,
          simulator: bool, scenario: str | None, state_checkout: str | None, seed: int,
          round_number: int, reports: Path | None, discovery_snapshot: str | None,
          pytest_args: tuple[str, ...]) -> int:
    outcome = run_probe(ProbeOptions(
        config_path=invocation.config_path, reports=reports, models=models, keyword=keyword,
        marker=marker, simulator=simulator, scenario=scenario, seed=seed,
        round_number=round_number, discovery_snapshot=discovery_snapshot, state_checkout=state_checkout,
        pytest_args=pytest_args))
    print(outcome.where())
    return outcome.code
