"""`canary maintenance add|list|remove`: a provider's announced maintenance windows (docs/maintenance.md).
A one-off window's --start and --end are ISO 8601 times; with --every, UTC times of day (HH:MM).
"""

from __future__ import annotations

import click

from canary.cli.commands._options import Invocation, common, pass_invocation, tag
from canary.state import people_yaml
from canary.state.maintenance import MaintenanceEntry, add_window, load_maintenance, remove_windows, render_windows
from core.store import atomic_write_text
from core.untrusted import clean
from judge.suspension.maintenance import DAILY, WEEKDAYS


@click.group("maintenance", short_help="add, list or remove a provider's maintenance window")
def maintenance() -> None:
    """A provider's announced maintenance windows: a failed round inside one is not counted."""


@maintenance.command("add", help="add a maintenance window")
@click.option("--provider", callback=tag, required=True,
              help="a full tag (that endpoint) or a bare one (every endpoint of the host)")
@click.option("--model", callback=tag, default=None, help="one model (default: every model the host serves)")
@click.option("--every", type=click.Choice([*WEEKDAYS, DAILY], case_sensitive=False), default=None,
              help="a recurring window's day (default: a one-off window)")
@click.option("--start", required=True, help="an ISO 8601 time, or with --every a UTC time of day (02:00)")
@click.option("--end", required=True, help="an ISO 8601 time, or with --every a UTC time of day (03:00)")
@click.option("--reason", required=True, help="where it was announced")
@click.option("--author", default=None, help="who (default: $GITHUB_ACTOR, else the login name)")
@common(files=("maintenance",), now=False)
@pass_invocation
def add(invocation: Invocation, provider: str, model: str | None, every: str | None, start: str, end: str,
        reason: str, author: str | None) -> int:
    path = invocation.config().paths.maintenance
    entry = MaintenanceEntry(provider=provider, model=model, every=every and every.casefold(), start=start, end=end,
                             reason=reason, author=people_yaml.author(author))
    with people_yaml.locked(path, "maintenance file") as text:
        atomic_write_text(path, add_window(text, str(path), entry))
    print(f"canary maintenance: added in {path}: {clean(provider)} of {clean(model or 'every model')}; commit it "
          "to main (a pull request, like an exclusion)")
    return 0


@maintenance.command("list", help="list the windows not over yet")
@click.option("--all", "include_past", is_flag=True, help="the one-off windows already over too")
@common(files=("maintenance",))
@pass_invocation
def list_command(invocation: Invocation, include_past: bool) -> int:
    windows = load_maintenance(invocation.config().paths.maintenance)
    print(render_windows(windows, invocation.now(), include_past=include_past))
    return 0


@maintenance.command("remove", help="remove the windows of a provider (and model)")
@click.option("--provider", callback=tag, required=True)
@click.option("--model", callback=tag, default=None, help="the model of a window that names one")
@click.option("--start", default=None, help="only the window starting so (as written in the file)")
@common(files=("maintenance",), now=False)
@pass_invocation
def remove(invocation: Invocation, provider: str, model: str | None, start: str | None) -> int:
    path = invocation.config().paths.maintenance
    with people_yaml.locked(path, "maintenance file") as text:
        new_text, gone = remove_windows(text, str(path), provider, model, start)
        atomic_write_text(path, new_text)
    print(f"canary maintenance: removed {len(gone)} window(s) of {clean(provider)} in {path}; commit it to main")
    return 0


__all__ = ["maintenance"]
