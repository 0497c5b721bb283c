"""`canary site --out DIR`: the static status page, its feeds and badges, from the round history
(docs/status-page.md). --state-checkout DIR reads the state and the history from a checkout of the
state branch; the people's files stay this checkout's (they live on main); a chat backend's records
(--production DIR, by default the state checkout's production/) give the users' reports and the
route audit. Exit 0 when written, 2 when it cannot be built (the message says why).
"""

from __future__ import annotations

import sys
import time
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import click

from canary.cli.commands._options import PATH, Invocation, common, pass_invocation
from canary.history.query import History
from canary.history.store import DEFAULT_HISTORY, history_root
from canary.outputs.site.build import HISTORY_DAYS, build_site
from canary.outputs.site.collect import Layers
from canary.state.judge_files import load_layers
from canary.state.maintenance import load_maintenance
from canary.state.production_files import records_between
from canary.state.silences import load_silences
from core.config import Config


@click.command("site", short_help="build the static status page, status.json, decisions.atom and badges")
@click.option("--out", type=PATH, required=True, metavar="DIR", help="the folder to write the site into")
@click.option("--allure", type=PATH, default=None, metavar="DIR",
              help="an Allure report folder (canary report --out) to publish beside the page as allure/")
@click.option("--echarts", type=PATH, default=None, metavar="FILE",
              help="echarts.min.js (default: node_modules/echarts/dist/echarts.min.js, installed by npm ci)")
@click.option("--base-url", default="", metavar="URL",
              help="where the site is published (makes the Atom feed's links absolute), e.g. "
                   "https://OWNER.github.io/REPO/")
@click.option("--days", type=int, default=HISTORY_DAYS, help=f"days of history to read (default {HISTORY_DAYS})")
@click.option("--stale-after", type=float, default=None, metavar="MINUTES",
              help="the page turns stale when its newest round is older (default: site.stale_after_minutes)")
@click.option("--state-checkout", type=PATH, default=None, metavar="DIR",
              help="a checkout of the state branch: read the state and the history from DIR/<paths.state> "
                   "and DIR/<paths.history>")
@click.option("--production", type=PATH, default=None, metavar="DIR",
              help="a folder of production records (default: production/ of --state-checkout, when there)")
@common(files=("state", "builtin", "incidents", "history", "silences", "maintenance"))
@pass_invocation
def site(invocation: Invocation, out: Path, allure: Path | None, echarts: Path | None, base_url: str, days: int,
         stale_after: float | None, state_checkout: Path | None, production: Path | None) -> int:
    """The static status page, its feeds and badges, from the round history (exit 2: it cannot be built)."""
    config = invocation.config()
    if base_url and not base_url.endswith("/"):
        base_url += "/"
    started = time.perf_counter()
    history, state_path = _history_and_state(config, state_checkout)
    if state_checkout is not None and not state_path.exists():
        print(f"canary site: note: no {state_path} in the state checkout (before the first round): the page "
              "shows no suspensions", file=sys.stderr)
    elif not state_path.exists():
        print(f"canary site: warning: no {config.paths.state} here (the judge's state lives on branch "
              f"{config.paths.state_branch}: run `canary fetch-state` first); suspensions are missing", file=sys.stderr)
    now = invocation.now()
    state, exclusions = load_layers(state_path, config.paths)
    if production is None and state_checkout is not None and (state_checkout / "production").is_dir():
        production = state_checkout / "production"
    records, refused = records_between(production, now - timedelta(days=7), now)
    for problem in refused:
        print(f"canary site: warning: {problem}", file=sys.stderr)
    built = build_site(
        out, History.open(history, now=now, days=days),
        Layers(state, exclusions, silences=load_silences(config.paths.silences),
               maintenance=load_maintenance(config.paths.maintenance), production=tuple(records)),
        config, stale_after_minutes=stale_after, allure=allure, echarts=echarts, base_url=base_url)
    print(f"canary site: wrote {built.files} files to {built.out} ({built.models} model(s), {built.endpoints} "
          f"endpoint(s), newest round {built.newest_round or 'none'}) in {time.perf_counter() - started:.1f} s")
    return 0


def _inside(checkout: Path, path: Path) -> Path:
    """Where a configured path lies in a checkout of the state branch (same layout as the repository)."""
    return checkout / (path if not path.is_absolute() else Path(path.name))


def _history_and_state(config: Config, checkout: Path | None) -> tuple[Path, Path]:
    """The history folder and the state file to read: this checkout's, or the state branch checkout's."""
    if checkout is None:
        return history_root(config.paths), config.paths.state
    state = _inside(checkout, config.paths.state)
    if Path(config.paths.history) == DEFAULT_HISTORY:  # left at its default, the history follows the state
        return history_root(replace(config.paths, state=state)), state
    return _inside(checkout, Path(config.paths.history)), state
