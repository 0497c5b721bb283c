"""`canary models`: the configured chat models, as lines or as the workflow's JSON matrix."""

from __future__ import annotations

import json
import re
import sys

import click

from canary.cli.commands._options import Invocation, config_option, pass_invocation


@click.command(
    "models", short_help="list the configured models (--json: the workflow's matrix)",
    help="List the models of canary.yaml. With --json, print the GitHub Actions matrix of the probe "
         'jobs, [{"models": "M1,M2", "slug": ..., "shares": N}]: by default one job probes every model, '
         "so concurrency.overall and concurrency.per_provider hold for the key and for each host across "
         "the whole round; --jobs N splits the models over N jobs, each given 1/N of both caps "
         "(`canary probe --shares N`). slug is made safe for an artifact name.")
@config_option
@click.option("--json", "as_json", is_flag=True, help="print a JSON matrix for `strategy.matrix.include`")
@click.option("--select", default="", metavar="M1,M2",
              help="keep only these configured models (comma or space separated; empty: all)")
@click.option("--jobs", type=int, default=1, metavar="N",
              help="--json: split the models over N probe jobs, each with 1/N of the concurrency caps "
                   "(default 1: one job probes every model)")
@pass_invocation
def models_command(invocation: Invocation, as_json: bool, select: str, jobs: int) -> int:
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
    if jobs < 1:
        print(f"canary models: --jobs {jobs}: expected 1 or more", file=sys.stderr)
        return 2
    if as_json:
        print(json.dumps(matrix(models, jobs), separators=(",", ":")))
    else:
        print("\n".join(models))
    return 0


def slug(model: str) -> str:
    """An artifact-safe name: upload-artifact refuses `/`, `:` and friends in names."""
    return re.sub(r"[^A-Za-z0-9._-]+", "--", model).strip("-") or "model"


def matrix(models: list[str], jobs: int) -> list[dict[str, object]]:
    """The probe jobs: the models dealt round-robin over at most `jobs` jobs (never an empty one).
    Each job's `shares` is the number of jobs: it probes with 1/shares of each concurrency cap, so
    the jobs together stay within what canary.yaml allows the key and each host."""
    n = min(jobs, len(models))
    groups = [models[i::n] for i in range(n)]
    return [{"models": ",".join(g), "slug": slug(g[0]) if n > 1 else "models", "shares": n} for g in groups]
