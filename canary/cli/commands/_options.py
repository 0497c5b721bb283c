"""What the subcommands share, as click options: --config, the file paths and --now.

Every file a command reads or writes can be overridden (--state, --audit, ...), so tools can work on
copies. The shared options' callbacks fill one `Invocation` (the click context's object): `canary
--config X judge` and `canary judge --config X` both land there, the later one winning, and a command
takes it with `@pass_invocation`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import click

from canary.state.judge_files import load_layers
from core.config import Config, PathSettings, load_config
from core.layers import Exclusion
from core.store import StoreError
from core.tags import describe_invalid_tag, is_valid_tag
from core.times import parse_time
from judge.suspension.state import JudgeState

# A file option is named after its setting of canary.yaml's `paths:` (`--builtin` overrides paths.builtin);
# `common` refuses a name PathSettings does not declare, when the command is declared.
PATH_SETTINGS = frozenset(f.name for f in fields(PathSettings) if isinstance(f.default, Path))
FILE_OPTIONS = ("state", "audit", "builtin",  # not the layer: paths.builtin, its file
                "incidents", "history", "silences", "maintenance")

F = TypeVar("F", bound=Callable[..., Any])


@dataclass
class Invocation:
    """The shared options of one command line: canary.yaml, its path overrides, and --now."""

    config_path: str | None = None
    paths: dict[str, Path] = field(default_factory=dict)
    at: datetime | None = None

    def config(self) -> Config:
        """canary.yaml with the command line's path overrides applied."""
        config = load_config(self.config_path)
        overrides: dict[str, Any] = dict(self.paths)
        return replace(config, paths=replace(config.paths, **overrides)) if overrides else config

    def now(self) -> datetime:
        """--now, or the current UTC time (to the second)."""
        return self.at if self.at is not None else datetime.now(UTC).replace(microsecond=0)

    def layers(self) -> LayersAtNow:
        """The three exclusion layers at --now (an unreadable layer: an InputError)."""
        config = self.config()
        state, exclusions = load_layers(config.paths.state, config.paths)
        return LayersAtNow(config, self.now(), state, exclusions)


@dataclass(frozen=True, slots=True)
class LayersAtNow:
    """What `canary ignore`, `status` and `digest` read: the config, the time, and the three layers."""

    config: Config
    now: datetime
    state: JudgeState
    exclusions: tuple[Exclusion, ...]


pass_invocation = click.make_pass_decorator(Invocation, ensure=True)


class Time(click.ParamType[datetime]):
    """An ISO 8601 time (core/times.py), refused as canary refuses any bad time: `--now: 'x' is not ...`."""

    name = "ISO8601"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> datetime:
        if isinstance(value, datetime):
            return value
        return parse_time(str(value), param.opts[0] if param is not None and param.opts else "time")


TIME = Time()


def tag(_ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A --model or --provider option's callback: a tag core/tags.py accepts, refused before any file is read."""
    if value is not None and not is_valid_tag(value):
        raise StoreError(f"{param.opts[0]}: {describe_invalid_tag(value)}")
    return value
PATH = click.Path(path_type=Path)


def _remember(ctx: click.Context, param: click.Parameter, value: Any) -> None:
    """A shared option's callback: its value onto the Invocation (--config twice: the later one wins)."""
    if value is None:
        return
    invocation = ctx.ensure_object(Invocation)
    if param.name == "config":
        invocation.config_path = value
    elif param.name == "now":
        invocation.at = value
    else:
        invocation.paths[str(param.name)] = value


def config_option(f: F) -> F:
    """--config, before or after the subcommand's name (the later one wins)."""
    return click.option("--config", default=None, metavar="FILE", expose_value=False, callback=_remember,
                        help="configuration file (default: canary.yaml, or $CANARY_CONFIG)")(f)


def selection_options(f: F) -> F:
    """Which cases a round probes: `canary probe` and `canary round` alike."""
    for option in reversed((
            click.option("--model", "models", multiple=True,
                         help="model id to probe (repeatable; default: canary.yaml)"),
            click.option("-k", "keyword", default=None, metavar="EXPR",
                         help="pytest -k expression, e.g. a tag: aurora/fp8"),
            click.option("-m", "marker", default=None, metavar="CONTRACT",
                         help="pytest -m expression over contracts: latency, refusal, structured, language"))):
        f = option(f)
    return f


def common(files: tuple[str, ...] = FILE_OPTIONS, now: bool = True) -> Callable[[F], F]:
    """--config, a --NAME PATH override of paths.NAME for each of `files`, and (unless now=False) --now."""
    unknown = sorted(set(files) - PATH_SETTINGS)
    if unknown:
        raise TypeError(f"common(files=...): {', '.join(unknown)} is not a file of canary.yaml's paths "
                        f"(core/config.py PathSettings: {', '.join(sorted(PATH_SETTINGS))})")

    def decorate(f: F) -> F:
        if now:  # a bad value is refused with the command's name, exit 2 (Time)
            f = click.option("--now", type=TIME, default=None, expose_value=False, callback=_remember,
                             help="the time to judge at (default: the current UTC time)")(f)
        for name in reversed(files):
            f = click.option(f"--{name}", name, type=PATH, default=None, metavar="PATH", expose_value=False,
                             callback=_remember, help=f"the {name} file (default: paths.{name} in canary.yaml)")(f)
        return config_option(f)

    return decorate


__all__ = ["PATH", "TIME", "Invocation", "common", "config_option", "pass_invocation", "tag"]
