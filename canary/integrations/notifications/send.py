"""Deliver one message (a round's, the digest) to every configured service through Apprise.

Never raises and never changes an exit code: a delivery still failing after its retries is printed
as one line and written to the audit log (`webhook_failed`), scrubbed of every part of every
configured URL. Each URL gets its own Apprise object, so a failure names one URL (by position and
scheme) and only those retry. Which services get the Markdown body and which `Message.plain()`:
docs/notifications.md.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from canary.integrations.notifications.message import Message, render
from canary.integrations.notifications.urls import (
    NOTIFY_URLS_ENV,
    TOKEN_FRAGMENT,
    Scrubber,
    Target,
    scheme_of,
    targets_from_env,
)
from canary.state import audit
from core.policy import Mode
from core.retry import Backoff
from core.store import StoreError
from core.untrusted import clean
from judge.suspension.decisions import RoundDecisions

ATTEMPTS = 3
BACKOFF_S = (1.0, 3.0)            # pauses between attempts (the last repeats)
MAX_PROBLEM = 300                 # characters of the (scrubbed) failure description kept
# Secrets that may be in the process environment and must never reach a message.
SECRET_ENVS = ("OPENROUTER_API_KEY", "GITHUB_TOKEN")
# Apprise's generic webhooks pass any format through to a program, which renders no Markdown.
PLAIN_SCHEMES = frozenset({"json", "jsons", "form", "forms", "xml", "xmls"})
# Apprise is imported where it is used: every `canary` command imports this module through
# the CLI, and Apprise loads its plugins on import (about 0.1 s).


@dataclass(frozen=True, slots=True)
class Failure:
    """One target that did not receive the message."""

    target: str      # Target.label: env variable, position, scheme (never the URL)
    attempts: int
    problem: str     # scrubbed


def recognised(url: str) -> bool:
    """Whether Apprise knows this URL as it is (a scheme of its own or a native webhook URL)."""
    try:
        import apprise
    except ImportError:
        return False
    with _apprise_logs():
        return bool(apprise.Apprise().add(url))


def targets(env: Mapping[str, str] | None = None) -> list[Target]:
    """The targets configured in the environment (CANARY_NOTIFY_URLS, then CANARY_WEBHOOK_URL)."""
    return targets_from_env(os.environ if env is None else env, recognised)


def send(doc: RoundDecisions, urls: Sequence[Target | str], audit_path: Path | None, *,
         attempts: int = ATTEMPTS, sleep: Callable[[float], None] = time.sleep,
         echo: Callable[[str], None] = print, env: Mapping[str, str] | None = None) -> list[Failure]:
    """Send the round's message to every URL; record and return the failures. Never raises."""
    if not urls or not doc.decisions:
        return []
    return send_message(render(doc), urls, audit_path, about=(doc.now, doc.round_id, doc.mode), attempts=attempts,
                        sleep=sleep, echo=echo, env=env)


def send_message(message: Message, urls: Sequence[Target | str], audit_path: Path | None, *,
                 about: tuple[datetime, str | None, Mode], attempts: int = ATTEMPTS,
                 sleep: Callable[[float], None] = time.sleep, echo: Callable[[str], None] = print,
                 env: Mapping[str, str] | None = None) -> list[Failure]:
    """Send any message to every URL; a failure is recorded in the audit log as of `about` (time, round id
    or None, mode) and returned. Never raises."""
    if not urls:
        return []
    env = os.environ if env is None else env
    chosen = [u if isinstance(u, Target) else Target(u, i + 1, NOTIFY_URLS_ENV) for i, u in enumerate(urls)]
    secrets = [env.get(name, "") for name in SECRET_ENVS]
    scrub = Scrubber([t.url for t in chosen], secrets)
    scrub_message = Scrubber([t.url for t in chosen], secrets, min_fragment=TOKEN_FRAGMENT)
    # Each form scrubbed as sent: a secret's fragment escaped in the Markdown (`a\_b`) is whole in the plain one.
    rich, plain = (Message(scrub_message(m.title), scrub_message(m.body), m.kind) for m in (message, message.plain()))
    failures = [f for t in chosen if (f := _deliver(t, (rich, plain), scrub, attempts, sleep)) is not None]
    for failure in failures:
        echo(f"canary: notification to {failure.target} failed after {failure.attempts} attempt(s) "
             f"({failure.problem}); recorded in the audit log")
    if failures and audit_path is not None:
        try:
            audit.append(audit_path, [_audit_line(about, f) for f in failures])
        except (OSError, StoreError) as exc:
            detail = exc.strerror if isinstance(exc, OSError) else str(exc)
            echo(f"canary: could not record the failed notification in the audit log ({detail})")
    return failures


def _deliver(target: Target, forms: tuple[Message, Message], scrub: Callable[[str], str], attempts: int,
             sleep: Callable[[float], None]) -> Failure | None:
    """Send the Markdown form (forms[0]) or the plain one (forms[1]), as the target renders; None: delivered."""
    try:
        import apprise
    except ImportError:   # a broken install must not fail the round either
        return Failure(target.label, 0, "Apprise is not installed: pip install the project again")
    problem = "not delivered"
    with _apprise_logs():  # add() may log the URL it could not parse: keep that away from handlers
        sender = apprise.Apprise()
        if not sender.add(target.url):
            return Failure(target.label, 0, "not a URL Apprise understands: check its scheme and form")
    markdown = target.legacy or (scheme_of(target.url) not in PLAIN_SCHEMES
                                 and sender[0].notify_format != apprise.NotifyFormat.TEXT)
    message = forms[0] if markdown else forms[1]
    title, body = ("", message.as_text()) if target.legacy else (message.title, message.body)
    for _ in Backoff(attempts, BACKOFF_S).tries(sleep):
        with _apprise_logs() as logs:
            try:
                delivered = bool(sender.notify(body=body, title=title, body_format="markdown" if markdown else "text",
                                               notify_type=message.kind))
            except Exception as exc:  # a plugin bug must not fail the round; its text may hold the URL
                delivered, logs[:] = False, [f"{type(exc).__name__} in Apprise"]
        if delivered:
            return None
        problem = "; ".join(dict.fromkeys(logs)) or "not delivered"
    return Failure(target.label, attempts, clean(scrub(problem), MAX_PROBLEM))


class _Collect(logging.Handler):
    def __init__(self, into: list[str]) -> None:
        super().__init__(logging.WARNING)
        self.into = into

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.into.append(record.getMessage())
        except Exception:  # a malformed log call inside a plugin
            self.into.append(str(record.msg))


@contextmanager
def _apprise_logs() -> Iterator[list[str]]:
    """Apprise's warnings of one call, kept from every other handler (they are not scrubbed yet)."""
    logger = logging.getLogger("apprise")
    messages: list[str] = []
    handler = _Collect(messages)
    propagate = logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield messages
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate


def _audit_line(about: tuple[datetime, str | None, Mode], failure: Failure) -> audit.AuditLine:
    now, round_id, mode = about
    return audit.warning_line(now, round_id, mode, action=audit.WEBHOOK_FAILED, rule="notification",
                              reason=f"{failure.target}: not delivered after {failure.attempts} attempt(s): "
                                     f"{failure.problem}")
