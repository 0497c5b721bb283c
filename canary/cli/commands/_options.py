"""Options shared by the judge's subcommands: file paths, --now, the loaded configuration.

Every file a command reads or writes can be overridden (--state, --audit, --builtin,
--incidents), so tools can work on copies; otherwise paths come from canary.yaml.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from canary.state.judge_files import load_layers
from core.config import Config, load_config
from core.layers import Exclusion
from core.times import parse_time
from judge.suspension.state import JudgeState

FILE_OPTIONS = ("state", "audit", "builtin", "incidents", "history", "silences", "maintenance")


def add_common(parser: argparse.ArgumentParser, files: tuple[str, ...] = FILE_OPTIONS, now: bool = True) -> None:
    # SUPPRESS: do not overwrite a --config given before the subcommand name.
    parser.add_argument("--config", default=argparse.SUPPRESS, help="configuration file (default: canary.yaml)")
    for name in files:
        parser.add_argument(f"--{name}", type=Path, default=None, metavar="PATH",
                            help=f"the {name} file (default: paths.{name} in canary.yaml)")
    if now:
        parser.add_argument("--now", default=None, metavar="ISO8601",
                            help="the time to judge at (default: the current UTC time)")


def config_of(args: argparse.Namespace) -> Config:
    """canary.yaml with the command line's path overrides applied."""
    config = load_config(getattr(args, "config", None))
    overrides = {name: getattr(args, name) for name in FILE_OPTIONS if getattr(args, name, None) is not None}
    return replace(config, paths=replace(config.paths, **overrides)) if overrides else config


@dataclass(frozen=True, slots=True)
class LayersAtNow:
    """What `canary ignore` and `canary status` read: the config, the time, and the three layers."""

    config: Config
    now: datetime
    state: JudgeState
    exclusions: tuple[Exclusion, ...]


def read_layers(args: argparse.Namespace) -> LayersAtNow:
    """The three exclusion layers at --now (a bad --now or an unreadable layer: an InputError)."""
    config = config_of(args)
    now = now_of(args)
    state, exclusions = load_layers(config.paths.state, config.paths)
    return LayersAtNow(config, now, state, exclusions)


def now_of(args: argparse.Namespace) -> datetime:
    """--now as an aware UTC datetime, or the current time. Raises TimeFormatError for a bad value."""
    value = getattr(args, "now", None)
    if value is None:
        return datetime.now(UTC).replace(microsecond=0)
    return parse_time(value, "--now")


__all__ = ["add_common", "config_of", "now_of"]
