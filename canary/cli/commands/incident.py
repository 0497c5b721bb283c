"""`canary incident add|remove`: edit exclusions/incidents.yaml without disturbing people's text.

The edit itself (one entry in, one entry out, every other byte kept) is canary/state/incidents.py;
this command checks the tags, reads and writes the file and records the decision in the audit log.
"""

from __future__ import annotations

from datetime import datetime

import click

from canary.cli.commands._options import TIME, Invocation, common, pass_invocation
from canary.state import audit
from canary.state.incidents import add_incident, remove_incident
from core.config import Config
from core.layers import INCIDENT, Exclusion
from core.store import StoreError, atomic_write_text, read_text
from core.tags import describe_invalid_tag, is_valid_tag
from judge.suspension.decisions import Action, Decision, Rule


@click.group("incident", short_help="add or remove a runtime incident exclusion")
def incident() -> None:
    """Add or remove a runtime incident exclusion (exclusions/incidents.yaml), audited."""


def entry_options(f: click.decorators.FC) -> click.decorators.FC:
    for option in reversed((click.option("--model", required=True), click.option("--provider", required=True),
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
    config, now, text = _open(invocation, model, provider)
    entry = Exclusion(model, provider, INCIDENT, reason, since=now, expires=expires, added_by=by)
    _write(config, now, add_incident(text, str(config.paths.incidents), entry),
           Decision(model, provider, Action.INCIDENT_ADD, Rule.MANUAL, reason, until=expires))
    print(f"canary incident: add {provider} for {model} in {config.paths.incidents}")
    return 0


@incident.command("remove", help="remove an incident exclusion")
@entry_options
@common(files=("incidents", "audit"))
@pass_invocation
def remove(invocation: Invocation, model: str, provider: str, reason: str) -> int:
    config, now, text = _open(invocation, model, provider)
    _write(config, now, remove_incident(text, str(config.paths.incidents), model, provider),
           Decision(model, provider, Action.INCIDENT_REMOVE, Rule.MANUAL, reason))
    print(f"canary incident: remove {provider} for {model} in {config.paths.incidents}")
    return 0


def _open(invocation: Invocation, model: str, provider: str) -> tuple[Config, datetime, str]:
    """The configuration, the time and the incident file's text, once the tags and the audit log are fine."""
    config = invocation.config()
    for value in (model, provider):
        if not is_valid_tag(value):
            raise StoreError(describe_invalid_tag(value))
    now = invocation.now()
    audit.check_appendable(config.paths.audit)
    return config, now, read_text(config.paths.incidents, "incident file") or ""


def _write(config: Config, now: datetime, new_text: str, decision: Decision) -> None:
    atomic_write_text(config.paths.incidents, new_text)
    audit.append(config.paths.audit, audit.decision_lines([decision], round_id=None, mode=config.mode, now=now))
