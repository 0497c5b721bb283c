"""`canary incident add|remove`: edit exclusions/incidents.yaml without disturbing people's text.

The edit itself (one entry in, one entry out, every other byte kept) is canary/state/incidents.py;
this command checks the tags, reads and writes the file and records the decision in the audit log.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import click

from canary.cli.commands._endpoint_tags import known_endpoints, unlisted
from canary.cli.commands._options import TIME, Invocation, common, pass_invocation, tag
from canary.state import audit
from canary.state.incidents import add_incident, remove_incident
from canary.state.people_yaml import locked
from core.layers import INCIDENT, Exclusion
from core.store import atomic_write_text
from judge.suspension.decisions import Action, Decision, Rule


@click.group("incident", short_help="add or remove a runtime incident exclusion")
def incident() -> None:
    """Add or remove a runtime incident exclusion (exclusions/incidents.yaml), audited."""


def entry_options(f: click.decorators.FC) -> click.decorators.FC:
    for option in reversed((click.option("--model", callback=tag, required=True),
                            click.option("--provider", callback=tag, required=True),
                            click.option("--reason", required=True))):
        f = option(f)
    return f


@incident.command("add", help="add an incident exclusion")
@entry_options
@click.option("--expires", type=TIME, default=None, help="when the incident ends by itself")
@click.option("--by", default=None, help="who added it (recorded as added_by)")
@common(files=("incidents", "audit"))
@pass_invocation
def add(invocation: Invocation, model: str, provider: str, reason: str, expires: datetime | None,
        by: str | None) -> int:
    now = invocation.now()
    warning = unlisted(model, provider, *known_endpoints(invocation.config(), now))
    if warning:
        print(f"canary incident: warning: {warning}", file=sys.stderr)
    entry = Exclusion(model, provider, INCIDENT, reason, since=now, expires=expires, added_by=by)
    path = _edit(invocation, now, lambda text, source: add_incident(text, source, entry),
                 Decision(model, provider, Action.INCIDENT_ADD, Rule.MANUAL, reason, until=expires))
    print(f"canary incident: add {provider} for {model} in {path}")
    return 0


@incident.command("remove", help="remove an incident exclusion")
@entry_options
@common(files=("incidents", "audit"))
@pass_invocation
def remove(invocation: Invocation, model: str, provider: str, reason: str) -> int:
    path = _edit(invocation, invocation.now(), lambda text, source: remove_incident(text, source, model, provider),
                 Decision(model, provider, Action.INCIDENT_REMOVE, Rule.MANUAL, reason))
    print(f"canary incident: remove {provider} for {model} in {path}")
    return 0


def _edit(invocation: Invocation, now: datetime, edit: Callable[[str, str], str], decision: Decision) -> Path:
    """Apply `edit` to the incident file and audit `decision`, both under the file's edit lock (two
    commands at once must not lose an entry)."""
    config = invocation.config()
    path = config.paths.incidents
    audit.check_appendable(config.paths.audit)
    with locked(path, "incident file") as text:
        atomic_write_text(path, edit(text, str(path)))
        audit.append(config.paths.audit, audit.decision_lines([decision], round_id=None, mode=config.mode, now=now))
    return path
