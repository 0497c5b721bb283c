"""`canary silence add|list|expire`: keep notifications and incident issues quiet about an endpoint.

    canary silence add --model M [--provider P] --until T --reason "..." [--author NAME]
    canary silence list [--all]
    canary silence expire --model M [--provider P]

`--until` is an ISO 8601 time or a duration from now (`90m`, `6h`, `2d`). The author defaults to
$GITHUB_ACTOR, else the login name. The file (paths.silences, exclusions/silences.yaml) is a
people's file on main: commit the change and open a pull request, as for an exclusion. What a
silence does, and does not, is judge/suspension/silences.py's docstring and docs/silences.md.
"""

from __future__ import annotations

import argparse
import getpass
import os
import re
from datetime import datetime, timedelta

from canary.cli.commands._options import add_common, config_of, now_of
from canary.state.silences import add_silence, expire_silences, load_silences, render_silences
from core.store import StoreError, atomic_write_text, read_text
from core.tags import describe_invalid_tag, is_valid_tag
from core.times import fmt_time, parse_time
from core.untrusted import clean
from judge.suspension.silences import MAX_SILENCE, Silence

_DURATION = re.compile(r"^(\d+)([mhd])$")
_UNITS = {"m": "minutes", "h": "hours", "d": "days"}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("silence", help="mute notifications and issue updates for an endpoint, until a time")
    sub = p.add_subparsers(dest="silence_action", metavar="add|list|expire", required=True)
    add = sub.add_parser("add", help="add a silence")
    add.add_argument("--model", required=True)
    add.add_argument("--provider", default=None, help="one endpoint's tag (default: every endpoint of the model)")
    add.add_argument("--until", required=True, metavar="ISO8601|DURATION",
                     help="when it ends: a time (2026-12-03T09:00:00Z) or a duration from now (90m, 6h, 2d)")
    add.add_argument("--reason", required=True, help="why (shown on the status page and in canary status)")
    add.add_argument("--author", default=None, help="who (default: $GITHUB_ACTOR, else the login name)")
    listing = sub.add_parser("list", help="list the silences in force")
    listing.add_argument("--all", action="store_true", help="expired ones too")
    expire = sub.add_parser("expire", help="end the silences of a model (or one endpoint) now")
    expire.add_argument("--model", required=True)
    expire.add_argument("--provider", default=None, help="the endpoint of a silence that names one")
    for q in (add, listing, expire):
        add_common(q, files=("silences",))
        q.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    config = config_of(args)
    path = config.paths.silences
    now = now_of(args)
    if args.silence_action == "list":
        silences = load_silences(path)
        print(render_silences(silences, now, include_expired=args.all))
        return 0
    for value in (args.model, args.provider):
        if value is not None and not is_valid_tag(value):
            raise StoreError(describe_invalid_tag(value))
    text = read_text(path, "silences file") or ""
    if args.silence_action == "add":
        until = until_of(args.until, now)
        silence = Silence(args.model, args.provider, until, args.reason, _author(args.author), added_at=now)
        atomic_write_text(path, add_silence(text, str(path), silence))
        print(f"canary silence: added in {path}: {clean(silence.scope)} until {fmt_time(until)}; commit it to main "
              "(a pull request, like an exclusion)")
    else:
        new_text, ended = expire_silences(text, str(path), args.model, args.provider, now)
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


def _author(given: str | None) -> str:
    if given:
        return given
    try:
        return os.environ.get("GITHUB_ACTOR") or getpass.getuser()
    except OSError:  # no login name (a container without a passwd entry)
        raise StoreError("who is adding this silence? pass --author NAME") from None


__all__ = ["register", "until_of"]
