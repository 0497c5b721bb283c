"""`canary models`: the configured chat models, one a line (the workflow's plan of the round)."""

from __future__ import annotations

import re
import sys

import click

from canary.cli.commands._options import Invocation, config_option, pass_invocation


@click.command("models", short_help="list the configured models",
               help="List the models of canary.yaml, one a line (the workflow's plan: every one is probed "
                    "by the one probe job, and the judge expects each).")
@config_option
@click.option("--select", default="", metavar="M1,M2",
              help="keep only these configured models (comma or space separated; empty: all)")
@pass_invocation
def models_command(invocation: Invocation, select: str) -> int:
    config = invocation.config()
    models = list(config.models)
    wanted = [m for m in re.split(r"[,\s]+", select) if m]
    unknown = [m for m in wanted if m not in models]
    if unknown:
        print(f"canary models: not configured in {config.source}: {', '.join(unknown)} "
              f"(configured: {', '.join(models) or 'none'})", file=sys.stderr)
        return 2
    if wanted:
        models = [m for m in models if m in wanted]
    if not models:
        print(f"canary models: {config.source} configures no models (add them under `models:`)", file=sys.stderr)
        return 2
    print("\n".join(models))
    return 0
