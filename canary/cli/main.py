"""The `canary` console script: one entry point, one module per subcommand.

Each module in canary/cli/commands/ exposes `register(subparsers)`, which adds its parser and sets
`func` (a callable taking the parsed args and returning an exit code). Discovering them here
keeps this file free of per-command edits.

A command refuses by raising: every CanaryError (core/errors.py) is caught once, here, and said
as `canary COMMAND: message` with the exit code the command's parser names (`refused=`; 2
unless it says otherwise). Commands never print a CanaryError and return an exit code
themselves (tests/test_architecture.py keeps it so); they catch one only to carry on without it.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

from canary.cli import commands
from core.config import ConfigError
from core.errors import CanaryError

EXIT_REFUSED = 2   # a command that refuses what it was given (its parser may name another: `refused=`)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="canary",
        description="Probe every OpenRouter provider of a model pinned, judge the round, "
                    "keep broken hosts out of provider.ignore.",
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
    except CanaryError as exc:  # the message names the thing and says what to do
        print(f"canary {args.command}: {exc}", file=sys.stderr)
        return int(getattr(args, "refused", EXIT_REFUSED))
    except KeyboardInterrupt:
        print("canary: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
