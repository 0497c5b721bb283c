"""`canary sim`: run the bundled OpenRouter simulator in the foreground and print its base URL."""

from __future__ import annotations

import argparse
from typing import Any

from simulator.cli import add_arguments, run


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "sim", help="serve the OpenRouter simulator (default scenario unless --scenario)",
        description="Serve an OpenRouter-compatible simulator on 127.0.0.1 until Ctrl-C/SIGTERM.",
    )  # fmt: skip
    add_arguments(parser)
    parser.set_defaults(func=run)
