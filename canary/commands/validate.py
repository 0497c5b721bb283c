"""`canary validate`: check the files people edit by hand before they reach main.

Runs in CI on every pull request (and push), so a broken edit of exclusions/builtin.yaml,
exclusions/incidents.yaml, canary.yaml or the judge's state fails the check with the file,
the line and what to do, instead of failing the next scheduled round. It reuses the very
parsers the judge uses (canary.store, canary.state): one definition of the format.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from canary.commands._options import add_common, config_of
from canary.config import ConfigError
from canary.state import load_state
from canary.store import load_exclusions
from judge.exclusions import BUILTIN, INCIDENT


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "validate", help="check canary.yaml, the exclusion files and the state file",
        description="Parse canary.yaml, exclusions/builtin.yaml, exclusions/incidents.yaml and the judge's "
                    "state file exactly as the judge will. Exit 1 with the file and line of each problem; "
                    "nothing is written.")
    add_common(p, files=("builtin", "incidents", "state"), now=False)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        config = config_of(args)
    except ConfigError as exc:
        print(f"canary validate: {exc}", file=sys.stderr)
        return 1
    paths = config.paths
    checks: list[tuple[Path, Callable[[], object]]] = [
        (paths.builtin, lambda: load_exclusions(paths.builtin, BUILTIN)),
        (paths.incidents, lambda: load_exclusions(paths.incidents, INCIDENT)),
        (paths.state, lambda: load_state(paths.state)),
    ]
    problems = 0
    print(f"ok    {config.source} ({len(config.models)} model(s), mode {config.mode})")
    for path, check in checks:
        try:
            loaded = check()
        except ValueError as exc:  # StoreError and the state parser's errors are ValueErrors
            print(f"FAIL  {exc}", file=sys.stderr)
            problems += 1
            continue
        state = "missing (empty)" if not path.exists() else _describe(loaded)
        print(f"ok    {path}: {state}")
        for model in _unconfigured(loaded, config.models):
            print(f"note  {path}: model {model!r} is not in {config.source}; its entries apply to nothing "
                  "until it is configured")
    return 1 if problems else 0


def _describe(loaded: object) -> str:
    return f"{len(loaded)} entr{'y' if len(loaded) == 1 else 'ies'}" if isinstance(loaded, tuple) else "valid"


def _unconfigured(loaded: object, models: tuple[str, ...]) -> list[str]:
    if not isinstance(loaded, tuple):
        return []
    return sorted({e.model for e in loaded} - set(models))
