"""`canary models`: the configured chat models, as lines or as the workflow's JSON matrix."""

from __future__ import annotations

import argparse
import json
import re
import sys

from core.config import load_config


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "models", help="list the configured models (--json: the workflow's matrix)",
        description="List the models of canary.yaml. With --json, print the GitHub Actions matrix "
                    '[{"model": ..., "slug": ...}]: slug is the model id made safe for an artifact name.')
    p.add_argument("--json", action="store_true", help="print a JSON matrix for `strategy.matrix.include`")
    p.add_argument("--select", default="", metavar="M1,M2",
                   help="keep only these configured models (comma or space separated; empty: all)")
    p.set_defaults(func=run)


def slug(model: str) -> str:
    """An artifact-safe name: upload-artifact refuses `/`, `:` and friends in names."""
    return re.sub(r"[^A-Za-z0-9._-]+", "--", model).strip("-") or "model"


def run(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    models = list(config.models)
    wanted = [m for m in re.split(r"[,\s]+", args.select) if m]
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
    if args.json:
        print(json.dumps([{"model": m, "slug": slug(m)} for m in models], separators=(",", ":")))
    else:
        print("\n".join(models))
    return 0
