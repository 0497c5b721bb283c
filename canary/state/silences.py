"""exclusions/silences.yaml: read, validated, and edited line by line by `canary silence`.

A people-owned file on main, reviewed like the exclusion files; what a silence does is
judge/suspension/silences.py's. The file is a list of entries, in this canonical block form
(what `canary silence add` appends; hand edits should keep it):

    - model: "deepseek/deepseek-chat-v3-0324"
      provider: "cinder/fp8"              # optional: without it, every endpoint of the model
      until: "2026-12-03T09:00:00Z"
      reason: "vendor ticket 4411: fix promised for Thursday"
      author: "alice"
      added_at: "2026-12-02T09:00:00Z"

Like the exclusion files it is walked as YAML nodes so that every error names its line, and
edited line by line so that people's comments stay: `add` appends one block, `expire` rewrites the
`until:` line of the entries it ends; the result is parsed again and must differ from the original
by exactly that change, or nothing is written.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import yaml

from canary.state.people_yaml import FIX, compose, entry_nodes, fail, problem, quoted, scalar_fields
from core.schema import read_as
from core.store import StoreError, read_text
from core.tags import describe_invalid_tag, is_valid_tag
from core.times import TimeFormatError, fmt_time, parse_time
from core.untrusted import clean
from judge.suspension.silences import MAX_SILENCE, Silence


@dataclass(frozen=True, slots=True)
class SilenceEntry:
    """An entry of silences.yaml (the file's declaration, read with core/schema.py)."""

    model: str
    until: str        # an ISO 8601 time
    reason: str
    author: str
    added_at: str     # an ISO 8601 time
    provider: str | None = None


def load_silences(path: Path) -> tuple[Silence, ...]:
    """The entries of the silences file (expired ones included); () when it does not exist."""
    text = read_text(path, "silences file")
    return () if text is None else parse_silences(text, str(path))


def silences_or_none(path: Path, warn: Callable[[str], None]) -> tuple[Silence, ...]:
    """load_silences for those who tell people: a file that cannot be read is warned about and
    applies no silence, so a broken edit makes canary louder, never quieter."""
    try:
        return load_silences(path)
    except StoreError as exc:
        warn(f"canary: warning: {exc} No silence applies until it is fixed: everything is told.")
        return ()


def parse_silences(text: str, source: str) -> tuple[Silence, ...]:
    """Validate the file's text; StoreError names the line of the first problem."""
    silences = [_entry(source, item) for item in entry_nodes(compose(text, source), source, "model")]
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
    before = parse_silences(text, source)
    root = compose(text, source)
    if isinstance(root, yaml.SequenceNode) and root.flow_style and root.value:
        raise StoreError(f"{source}: the entries are not a block list (- model: ...); add the silence by hand")
    lines = text.splitlines(keepends=True)
    if isinstance(root, yaml.SequenceNode) and root.flow_style:  # `[]`: the empty list written out
        lines = [line for line in lines if line.strip() != "[]"]
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    new_text = "".join(lines + _block(silence))
    _verify(source, new_text, (*before, silence))
    return new_text


def expire_silences(text: str, source: str, model: str, provider: str | None, now: datetime
                    ) -> tuple[str, tuple[Silence, ...]]:
    """`text` with every silence of exactly `model` (and `provider`, or none) still active at `now`
    ended at `now` (its `until:` line rewritten); and the silences so ended. StoreError when none is."""
    before = parse_silences(text, source)
    doomed = [s for s in before if s.model == model and s.active(now)
              and (s.provider or "").casefold() == (provider or "").casefold()]
    if not doomed:
        scope = f"{provider} of {model}" if provider else f"every endpoint of {model} (no --provider)"
        raise StoreError(f"{source}: no active silence of {scope} at {fmt_time(now)}")
    root = compose(text, source)
    assert isinstance(root, yaml.SequenceNode)  # parse_silences found entries
    lines = text.splitlines(keepends=True)
    by_line = {s.line: s for s in doomed}
    for item in root.value:
        if item.start_mark.line + 1 not in by_line:
            continue
        until = next((v for k, v in item.value if k.value == "until"), None)
        if until is None or until.start_mark.line != until.end_mark.line:
            raise StoreError(f"{source}: line {item.start_mark.line + 1}: the entry is not in the canonical block "
                             "form; expire it by hand (set until to now)")
        at = until.start_mark.line
        row = lines[at]
        lines[at] = row[: until.start_mark.column] + quoted(fmt_time(now) or "") + row[until.end_mark.column:]
    new_text = "".join(lines)
    ended = tuple(dataclasses.replace(s, until=now) for s in doomed)
    kept = tuple(s for s in before if s.line not in by_line)
    _verify(source, new_text, (*kept, *ended))
    return new_text, ended


def render_silences(silences: tuple[Silence, ...], now: datetime, *, include_expired: bool = False) -> str:
    """The silences as lines for a terminal (upstream-looking text cleaned to one line)."""
    shown = sorted((s for s in silences if include_expired or s.active(now)),
                   key=lambda s: (s.model, s.provider or "", s.until))
    if not shown:
        return f"canary silence: no silence in force at {fmt_time(now)}"
    out = [f"silences at {fmt_time(now)} (notifications and incident issues muted; the judge judges as always):"]
    for s in shown:
        state = "" if s.active(now) else "  (expired)"
        out.append(f"  {clean(s.scope, 200)}  until {fmt_time(s.until)}  by {clean(s.author, 60)}: "
                   f"{clean(s.reason, 200)}{state}")
    return "\n".join(out)


def _entry(source: str, node: yaml.Node) -> Silence:
    fields = scalar_fields(source, node, [f.name for f in dataclasses.fields(SilenceEntry)],
                           "model, until, reason, author and added_at")
    entry = read_as(fields, SilenceEntry, source=None, error=lambda why: problem(source, node, why))
    if not is_valid_tag(entry.model):
        fail(source, node, f"model id {describe_invalid_tag(entry.model)}")
    if entry.provider is not None and not is_valid_tag(entry.provider):
        fail(source, node, f"provider {describe_invalid_tag(entry.provider)}")
    for name in ("reason", "author"):
        if not getattr(entry, name).strip():
            fail(source, node, f"{name}: must not be empty (who silenced it, and why, is the point of the file)")
    until, added_at = _time(source, node, "until", entry.until), _time(source, node, "added_at", entry.added_at)
    if until < added_at:
        fail(source, node, f"until ({entry.until}) must not be before added_at ({entry.added_at})")
    if until - added_at > MAX_SILENCE:
        fail(source, node, f"a silence lasts at most {MAX_SILENCE.days} days after added_at (this one "
                            f"{(until - added_at).days}); a longer one is an incident exclusion or a fix")
    return Silence(model=entry.model, provider=entry.provider, until=until, reason=entry.reason,
                   author=entry.author, added_at=added_at, line=node.start_mark.line + 1)


def _time(source: str, node: yaml.Node, name: str, value: str) -> datetime:
    try:
        return parse_time(value, name)
    except TimeFormatError:
        fail(source, node, f"{name}: {value!r} is not an ISO 8601 time like 2026-12-03T09:00:00Z")


def _block(s: Silence) -> list[str]:
    fields: list[tuple[str, str]] = [("model", s.model)]
    if s.provider is not None:
        fields.append(("provider", s.provider))
    fields += [("until", fmt_time(s.until) or ""), ("reason", s.reason), ("author", s.author),
               ("added_at", fmt_time(s.added_at) or "")]
    return [f"{'- ' if i == 0 else '  '}{name}: {quoted(value)}\n" for i, (name, value) in enumerate(fields)]


def _verify(source: str, new_text: str, expected: tuple[Silence, ...]) -> None:
    def key(s: Silence) -> tuple[object, ...]:
        return (s.model, s.provider, s.until, s.reason, s.author, s.added_at)

    try:
        after = parse_silences(new_text, source)
    except StoreError:
        after = None
    if after is None or sorted(map(key, after), key=repr) != sorted(map(key, expected), key=repr):
        raise StoreError(f"{source}: the file's layout did not allow a safe automatic edit; "
                         "edit it by hand (the header shows the format). Nothing was written.")


__all__ = ["add_silence", "expire_silences", "load_silences", "parse_silences", "render_silences",
           "silences_or_none"]
