"""`canary digest`: at most once per `digest.every_hours`, one message about what stands, when it changed
(docs/notifications.md, The daily digest). In GitHub Actions the step sets `recorded=true` so the
workflow commits the audit log's `digest_sent` line. Exit 0 whatever the services did; 2 when a file
cannot be read.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Sequence
from datetime import UTC, datetime, time, timedelta

import click
import msgspec
from msgspec import UnsetType

from canary.cli.commands._options import Invocation, common, pass_invocation
from canary.history.observe import would_suspends
from canary.integrations.notifications import send as notifications
from canary.integrations.notifications.digest import Digest, compose_digest, render_digest
from canary.state import audit
from canary.state.maintenance import load_maintenance
from canary.state.silences import silences_or_none
from core.policy import Mode
from core.times import fmt_time

DIGEST_SENT = "digest_sent"
SUMMARY_ENV = "GITHUB_STEP_SUMMARY"
OUTPUT_ENV = "GITHUB_OUTPUT"


@click.command("digest", short_help="the daily digest: what stands and what changed, when it changed")
@click.option("--force", is_flag=True, help="send it now even if not due or unchanged")
@common(files=("state", "audit", "builtin", "incidents", "silences", "maintenance"))
@pass_invocation
def digest(invocation: Invocation, force: bool) -> int:
    """At most once per digest.every_hours, one message about what stands, when it changed."""
    layers = invocation.layers()
    config, now = layers.config, layers.now
    every = timedelta(hours=config.digest.every_hours)
    if not every and not force:
        print("canary digest: off (digest.every_hours is 0)")
        return 0
    log = audit.read(config.paths.audit)
    for problem in log.set_aside:
        print(f"canary digest: warning: {problem} (that audit line is skipped)", file=sys.stderr)
    last = last_digest(log.lines)
    if last is not None and not force and now < (due := next_due(last[0], every, config.digest.hour_utc)):
        print(f"canary digest: the last was at {fmt_time(last[0])}; the next is due from {fmt_time(due)}")
        return 0
    composed = compose_digest(
        now=now, state=layers.state, exclusions=layers.exclusions,
        silences=silences_or_none(config.paths.silences, lambda line: print(line, file=sys.stderr)),
        maintenance=load_maintenance(config.paths.maintenance),
        would=would_suspends(log.lines, since=now - timedelta(days=8), now=now),
        previous=None if last is None else last[1], audit_lines=log.lines)
    if not composed.changed and not force:
        when = "the last digest" if last is not None else "nothing to tell (no digest yet, and nothing stands)"
        print(f"canary digest: nothing changed since {when}; nothing sent")
        return 0
    message = render_digest(composed)
    print(message.plain().as_text())  # a terminal shows Markdown as it is: no escapes
    summary = os.environ.get(SUMMARY_ENV)
    if summary:
        with open(summary, "a", encoding="utf-8") as handle:
            handle.write(f"### {message.title}\n\n{message.body}\n\n")
    targets = notifications.targets()
    notifications.send_message(message, targets, config.paths.audit, about=(now, None, config.mode))
    audit.append(config.paths.audit, [digest_line(composed, config.mode, delivered_to=len(targets))])
    output = os.environ.get(OUTPUT_ENV)
    if output:
        with open(output, "a", encoding="utf-8") as handle:
            handle.write("recorded=true\n")
    return 0


def last_digest(lines: Sequence[audit.AuditLine]) -> tuple[datetime, tuple[str, ...]] | None:
    """(time, keys) of the newest digest_sent line of the audit log (one with its keys), or None."""
    for line in reversed(lines):
        if line.action == DIGEST_SENT and not isinstance(line.keys, UnsetType):
            return line.at, line.keys
    return None


def next_due(last: datetime, every: timedelta, hour: int | None) -> datetime:
    """When the digest after one sent at `last` is due: `every` later, or with digest.hour_utc at the
    first of that day's slots (the hour, and every `every` from it) after `last`: a digest sent late
    (the first one, a round run late) does not move the next ones."""
    if hour is None:
        return last + every
    anchor = datetime.combine(last.date(), time(hour), tzinfo=UTC)
    return anchor + (math.floor((last - anchor) / every) + 1) * every


def digest_line(digest: Digest, mode: Mode, *, delivered_to: int) -> audit.AuditLine:
    line = audit.warning_line(digest.now, None, mode, action=DIGEST_SENT, rule="digest",
                              reason=f"{len(digest.lines)} line(s), {len(digest.added)} new, {len(digest.gone)} gone; "
                                     f"sent to {delivered_to} service(s)")
    return msgspec.structs.replace(line, keys=tuple(digest.keys))


__all__ = ["DIGEST_SENT", "digest", "digest_line", "last_digest", "next_due"]
