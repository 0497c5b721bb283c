"""`canary silence add|list|expire`: keep notifications and incident issues quiet about an endpoint
(docs/silences.md). `--until` is an ISO 8601 time or a duration from now (`90m`, `6h`, `2d`); the author
defaults to $GITHUB_ACTOR, else the login name.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

import click

from canary.cli.commands._options import Invocation, common, pass_invocation, tag
from canary.state import people_yaml
from canary.state.silences import add_silence, expire_silences, load_silences, render_silences
from core.store import StoreError, atomic_write_text
from core.times import fmt_time, parse_time
from core.untrusted import clean
from judge.suspension.silences import MAX_SILENCE, Silence

_DURATION = re.compile(r"^(\d+)([mhd])$")
_UNITS = {"m": "minutes", "h": "hours", "d": "days"}


@click.group("silence",
             short_help="mute notifications and issue updates for an endpoint, until a time")
def silence() -> None:
    """Keep notifications and incident issues quiet about an endpoint, until a time."""


@silence.command("add", help="add a silence")
@click.option("--model", callback=tag, required=True)
@click.option("--provider", callback=tag, default=None,
              help="one endpoint's tag (default: every endpoint of the model)")
@click.option("--until", "until_text", required=True, metavar="ISO8601|DURATION",
              help="when it ends: a time (2026-12-03T09:00:00Z) or a duration from now (90m, 6h, 2d)")
@click.option("--reason", required=True, help="why (shown on the status page and in canary status)")
@click.option("--author", default=None, help="who (default: $GITHUB_ACTOR, else the login name)")
@common(files=("silences",))
@pass_invocation
def add(invocation: Invocation, model: str, provider: str | None, until_text: str, reason: str,
        author: str | None) -> int:
    path, now = invocation.config().paths.silences, invocation.now()
    added = Silence(model, provider, until_of(until_text, now), reason, people_yaml.author(author), added_at=now)
    with people_yaml.locked(path, "silences file") as text:
        atomic_write_text(path, add_silence(text, str(path), added))
    print(f"canary silence: added in {path}: {clean(added.scope)} until {fmt_time(added.until)}; commit it to main "
          "(a pull request, like an exclusion)")
    return 0


@silence.command("list", help="list the silences in force")
@click.option("--all", "include_expired", is_flag=True, help="expired ones too")
@common(files=("silences",))
@pass_invocation
def list_command(invocation: Invocation, include_expired: bool) -> int:
    silences = load_silences(invocation.config().paths.silences)
    print(render_silences(silences, invocation.now(), include_expired=include_expired))
    return 0


@silence.command("expire", help="end the silences of a model (or one endpoint) now")
@click.option("--model", callback=tag, required=True)
@click.option("--provider", callback=tag, default=None, help="the endpoint of a silence that names one")
@common(files=("silences",))
@pass_invocation
def expire(invocation: Invocation, model: str, provider: str | None) -> int:
    path, now = invocation.config().paths.silences, invocation.now()
    with people_yaml.locked(path, "silences file") as text:
        new_text, ended = expire_silences(text, str(path), model, provider, now)
        atomic_write_text(path, new_text)
    print(f"canary silence: expired {len(ended)} silence(s) of {clean(ended[0].scope)} in {path}; commit it "
          "to main")
    return 0


def until_of(value: str, now: datetime) -> datetime:
    """--until: a time after `now`, at most MAX_SILENCE later (a duration counts from `now`)."""
    match = _DURATION.match(value.strip())
    until = (now + timedelta(**{_UNITS[match[2]]: int(match[1])}) if match is not None
             else parse_time(value, "--until"))
    if until <= now:
        raise StoreError(f"--until {value}: {fmt_time(until)} is not after now ({fmt_time(now)})")
    if until - now > MAX_SILENCE:
        raise StoreError(f"--until {value}: a silence lasts at most {MAX_SILENCE.days} days; a longer one is an "
                         "incident exclusion (canary incident add) or a fix")
    return until


__all__ = ["silence", "until_of"]
