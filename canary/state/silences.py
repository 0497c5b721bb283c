"""exclusions/silences.yaml: read, validated, and edited by `canary silence` (docs/silences.md)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from canary.state import people_yaml
from core.layer_files import FIX, Walked, entry_error, entry_time, walk
from core.store import StoreError, read_text
from core.times import fmt_time
from core.untrusted import clean
from judge.suspension.silences import CLOCK_SKEW, MAX_SILENCE, Silence


@dataclass(frozen=True, slots=True, kw_only=True)
class SilenceEntry:
    """An entry of silences.yaml: `walk` reads it, people_yaml writes it in this order."""

    model: str
    provider: str | None = None
    until: str        # an ISO 8601 time
    reason: str
    author: str
    added_at: str     # an ISO 8601 time


def load_silences(path: Path, now: datetime | None = None) -> tuple[Silence, ...]:
    """The entries of the silences file (expired ones included); () when it does not exist."""
    text = read_text(path, "silences file")
    return () if text is None else parse_silences(text, str(path), now)


def silences_or_none(path: Path, warn: Callable[[str], None]) -> tuple[Silence, ...]:
    """load_silences for those who tell people: a file that cannot be read is warned about and
    applies no silence, so a broken edit makes canary louder, never quieter."""
    try:
        return load_silences(path)
    except StoreError as exc:
        warn(f"canary: warning: {exc} No silence applies until it is fixed: everything is told.")
        return ()


def parse_silences(text: str, source: str, now: datetime | None = None) -> tuple[Silence, ...]:
    """Validate the file's text (with `now`: no silence added after it); StoreError names the line of
    the first problem."""
    silences = [_silence(source, w, now) for w in walk(text, source, SilenceEntry)]
    seen: dict[tuple[str, str | None, datetime], int | None] = {}
    for s in silences:
        key = (s.model, (s.provider or "").casefold() or None, s.until)
        if key in seen:
            raise StoreError(f"{source}: line {s.line}: the same silence as line {seen[key]} ({s.scope} until "
                             f"{fmt_time(s.until)}); keep one. {FIX}")
        seen[key] = s.line
    return tuple(silences)


def add_silence(text: str, source: str, silence: Silence) -> str:
    """`text` with `silence` appended as one canonical block."""
    parse_silences(text, source)
    new_text = people_yaml.add(text, source, SilenceEntry(
        model=silence.model, provider=silence.provider, until=fmt_time(silence.until) or "", reason=silence.reason,
        author=silence.author, added_at=fmt_time(silence.added_at) or ""))
    parse_silences(new_text, source)  # the same silence twice is refused
    return new_text


def expire_silences(text: str, source: str, model: str, provider: str | None, now: datetime
                    ) -> tuple[str, tuple[Silence, ...]]:
    """`text` with every silence of exactly `model` (and `provider`, or none) in force at `now` ended at
    `now` (its `until:` rewritten); and the silences so ended. StoreError when none is."""
    doomed = [s for s in parse_silences(text, source) if s.model == model and s.active(now)
              and (s.provider or "").casefold() == (provider or "").casefold()]
    if not doomed:
        scope = f"{provider} of {model}" if provider else f"every endpoint of {model} (no --provider)"
        raise StoreError(f"{source}: no active silence of {scope} at {fmt_time(now)}")
    lines = {s.line for s in doomed}
    new_text = people_yaml.change(text, source, SilenceEntry, lambda w: w.line in lines,
                                  {"until": fmt_time(now) or ""})
    return new_text, tuple(dataclasses.replace(s, until=now) for s in doomed)


def render_silences(silences: tuple[Silence, ...], now: datetime, *, include_expired: bool = False) -> str:
    """The silences as lines for a terminal (upstream-looking text cleaned to one line)."""
    shown = sorted((s for s in silences if include_expired or s.active(now)),
                   key=lambda s: (s.model, s.provider or "", s.until))
    if not shown:
        return f"canary silence: no silence in force at {fmt_time(now)}"
    out = [f"silences at {fmt_time(now)} (notifications and incident issues muted; the judge judges as always):"]
    for s in shown:
        state = ("" if s.active(now) else "  (expired)" if s.until <= now else
                 f"  (not in force: it ends more than {MAX_SILENCE.days} days ahead)")
        out.append(f"  {clean(s.scope, 200)}  until {fmt_time(s.until)}  by {clean(s.author, 60)}: "
                   f"{clean(s.reason, 200)}{state}")
    return "\n".join(out)


def _silence(source: str, w: Walked[SilenceEntry], now: datetime | None) -> Silence:
    e = w.entry
    try:
        until, added_at = entry_time("until", e.until), entry_time("added_at", e.added_at)
    except StoreError as exc:
        raise entry_error(source, w.line, str(exc)) from None
    if until < added_at:
        problem = f"until ({e.until}) must not be before added_at ({e.added_at})"
    elif until - added_at > MAX_SILENCE:
        problem = (f"a silence lasts at most {MAX_SILENCE.days} days after added_at (this one "
                   f"{(until - added_at).days}); a longer one is an incident exclusion or a fix")
    elif now is not None and added_at > now + CLOCK_SKEW:
        problem = (f"added_at ({e.added_at}) is after now ({fmt_time(now)}): a silence starts when it is "
                   "added, so its 30 days cannot be moved ahead; write the time it was added")
    else:
        return Silence(model=e.model, provider=e.provider, until=until, reason=e.reason, author=e.author,
                       added_at=added_at, line=w.line)
    raise entry_error(source, w.line, problem)


__all__ = ["SilenceEntry", "add_silence", "expire_silences", "load_silences", "parse_silences",
           "render_silences", "silences_or_none"]
