"""`canary ignore --model M [--now ISO]`: print the effective provider.ignore list as JSON (docs/judge.md,
Three layers); without --model, every known model's. Without a fetched state the suspensions are
missing, and this says so on stderr.
"""

from __future__ import annotations

import json
import sys
from datetime import datetime

import click

from canary.cli.commands._options import TIME, Invocation, common, pass_invocation
from judge.suspension.exclusions import effective_ignore, known_models


@click.command("ignore", short_help="print the effective provider.ignore list as JSON")
@click.option("--model", default=None, help="model id (default: every known model)")
@click.option("--at", type=TIME, default=None,
              help="the list in effect at this past moment, rebuilt from the audit log (canary/history/past.py)")
@common(files=("state", "audit", "builtin", "incidents"))
@pass_invocation
def ignore(invocation: Invocation, model: str | None, at: datetime | None) -> int:
    """Print the effective provider.ignore list as JSON (of one model, or of every known model)."""
    if at is not None:
        from canary.cli.commands._ignore_at import run_at

        return run_at(invocation.config(), at, model)
    layers = invocation.layers()
    config, now, state, exclusions = layers.config, layers.now, layers.state, layers.exclusions
    if not config.paths.state.exists():
        print(f"canary ignore: warning: no {config.paths.state} here; the judge's suspensions live on branch "
              f"{config.paths.state_branch}: run `canary fetch-state` first. Showing people's exclusions only.",
              file=sys.stderr)
    if model is not None:
        print(json.dumps(effective_ignore(model, exclusions, state, now)))
    else:
        models = known_models(exclusions, state, config.models)
        print(json.dumps({m: effective_ignore(m, exclusions, state, now) for m in models}, sort_keys=True))
    return 0
