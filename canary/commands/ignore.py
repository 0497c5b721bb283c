"""`canary ignore --model M [--now ISO]`: print the effective provider.ignore list as JSON.

builtin ∪ incidents unexpired at now ∪ enforce-mode suspensions unexpired at now, sorted.
Without --model: an object mapping every known model to its list.
"""

from __future__ import annotations

import argparse
import json
import sys

from canary.commands._options import add_common, config_of, now_of
from canary.provider_ignore import load_layers
from canary.store import StoreError
from judge.exclusions import effective_ignore, known_models
from judge.report import ReportError


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("ignore", help="print the effective provider.ignore list as JSON")
    p.add_argument("--model", default=None, help="model id (default: every known model)")
    add_common(p, files=("state", "builtin", "incidents"))
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    config = config_of(args)
    try:
        now = now_of(args)
        state, exclusions = load_layers(config.paths.state, config.paths.builtin, config.paths.incidents)
    except (StoreError, ReportError) as exc:
        print(f"canary ignore: {exc}", file=sys.stderr)
        return 2
    if args.model is not None:
        print(json.dumps(effective_ignore(args.model, exclusions, state, now)))
    else:
        models = known_models(exclusions, state, config.models)
        print(json.dumps({m: effective_ignore(m, exclusions, state, now) for m in models}, sort_keys=True))
    return 0
