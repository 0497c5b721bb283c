"""The `canary` console script: one entry point, one module per subcommand.

Each module in canary/cli/commands/ exposes `register(subparsers)`, which adds its parser and sets
`func` (a callable taking the parsed args and returning an exit code). Discovering them here
keeps this file free of per-command edits.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

from canary.cli import commands
from core.config import ConfigError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="canary",
        description="Probe every OpenRouter provider of a model pinned, judge the round, keep broken hosts out of provider.ignore.",
    )
    parser.add_argument("--config", default=None, help="configuration file (default: canary.yaml, or $CANARY_CONFIG)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"canary.cli.commands.{info.name}")
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except ConfigError as exc:
        print(f"canary: configuration error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("canary: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
