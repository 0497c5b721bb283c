"""`canary site --out DIR`: the static status page, its feeds and badges, from the round history.

    canary site --out site [--allure reports/allure-report] [--base-url https://OWNER.github.io/REPO/]
                [--state-checkout DIR]

Reads the history (paths.history, or --history), the judge's state and people's exclusion files
(as `canary ignore` does: run `canary fetch-state` first for the state branch's files) and writes
the site. --state-checkout DIR reads the state and the history from a checkout of the state
branch instead (DIR/<paths.state>, DIR/<paths.history>), as the workflow's report job does; the
exclusion, silences and maintenance files stay those of this checkout (they live on main). It writes
(canary/outputs/site/build.py lists the files). Exit 0 when written, 2 when it cannot be built
(the message says why: a damaged history file, a bad layer file, ECharts not installed).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from canary.cli.commands._options import add_common, config_of, now_of
from canary.history.store import DEFAULT_HISTORY, history_root
from canary.outputs.site.build import HISTORY_DAYS, build_site
from canary.outputs.site.collect import Layers
from canary.state.judge_files import load_layers
from canary.state.maintenance import load_maintenance
from canary.state.silences import load_silences


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("site", help="build the static status page, status.json, decisions.atom and badges")
    p.add_argument("--out", type=Path, required=True, metavar="DIR", help="the folder to write the site into")
    p.add_argument("--allure", type=Path, default=None, metavar="DIR",
                   help="an Allure report folder (canary report --out) to publish beside the page as allure/")
    p.add_argument("--echarts", type=Path, default=None, metavar="FILE",
                   help="echarts.min.js (default: node_modules/echarts/dist/echarts.min.js, installed by npm ci)")
    p.add_argument("--base-url", default="", metavar="URL",
                   help="where the site is published (makes the Atom feed's links absolute), e.g. "
                        "https://OWNER.github.io/REPO/")
    p.add_argument("--days", type=int, default=HISTORY_DAYS, help=f"days of history to read (default {HISTORY_DAYS})")
    p.add_argument("--stale-after", type=float, default=None, metavar="MINUTES",
                   help="the page turns stale when its newest round is older (default: site.stale_after_minutes)")
    p.add_argument("--state-checkout", type=Path, default=None, metavar="DIR",
                   help="a checkout of the state branch: read the state and the history from DIR/<paths.state> "
                        "and DIR/<paths.history>")
    add_common(p, files=("state", "builtin", "incidents", "history", "silences", "maintenance"))
    p.set_defaults(func=_run)


def _inside(checkout: Path, path: Path) -> Path:
    """Where a configured path lies in a checkout of the state branch (same layout as the repository)."""
    return checkout / (path if not path.is_absolute() else Path(path.name))


def _history_and_state(config: Any, checkout: Path | None) -> tuple[Path, Path]:
    """The history folder and the state file to read: this checkout's, or the state branch checkout's."""
    if checkout is None:
        return history_root(config.paths), config.paths.state
    state = _inside(checkout, config.paths.state)
    if Path(config.paths.history) == DEFAULT_HISTORY:  # left at its default, the history follows the state
        return history_root(replace(config.paths, state=state)), state
    return _inside(checkout, Path(config.paths.history)), state


def _run(args: argparse.Namespace) -> int:
    config = config_of(args)
    base_url = args.base_url
    if base_url and not base_url.endswith("/"):
        base_url += "/"
    started = time.perf_counter()
    history, state_file = _history_and_state(config, args.state_checkout)
    if args.state_checkout is not None and not state_file.exists():
        print(f"canary site: note: no {state_file} in the state checkout (before the first round, or no state "
              "branch): the page shows no suspensions", file=sys.stderr)
    elif config.paths.state_branch and not state_file.exists():
        print(f"canary site: warning: no {config.paths.state} here (the judge's state lives on branch "
              f"{config.paths.state_branch}: run `canary fetch-state` first); suspensions are missing", file=sys.stderr)
    now = now_of(args)
    state, exclusions = load_layers(state_file, config.paths)
    built = build_site(
        args.out, history_root=history, now=now,
        layers=Layers(state, exclusions, silences=load_silences(config.paths.silences),
                      maintenance=load_maintenance(config.paths.maintenance)),
        models=list(config.models), ttft_threshold_s=config.probe.ttft_seconds,
        stale_after_minutes=config.site.stale_after_minutes if args.stale_after is None else args.stale_after,
        allure=args.allure, echarts=args.echarts, base_url=base_url, days=args.days)
    print(f"canary site: wrote {built.files} files to {built.out} ({built.models} model(s), {built.endpoints} "
          f"endpoint(s), newest round {built.newest_round or 'none'}) in {time.perf_counter() - started:.1f} s")
    return 0
