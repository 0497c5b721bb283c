"""The judge's files on disk: state/canary-state.json and the exclusion files, read and written.

The state's format and its codec are judge/suspension/state.py's (`state_to_json` / `state_from_json`);
this module is the I/O around them (core/store.py's atomic writes and careful reads).

Exclusion files (builtin.yaml, incidents.yaml) map a model id to a list of entries:

    "deepseek/deepseek-chat-v3-0324":
      - provider: "aurora/fp8"
        reason: "stray punctuation at the start of replies"
        since: "2026-11-29"                 # builtin only, optional
        added_at: "2026-11-29T22:30:00Z"    # incidents: required
        expires: "2026-12-06T00:00:00Z"     # incidents: optional
        added_by: "alice"                   # incidents: optional

They are walked as YAML nodes (not plain dicts) so that every error carries its line.
"""

from __future__ import annotations

from datetime import UTC, datetime, time
from pathlib import Path
from typing import NoReturn

import yaml

from core.store import StoreError, atomic_write_json, read_json, read_text
from core.tags import describe_invalid_tag, is_valid_tag
from core.times import TimeFormatError, fmt_time, parse_date, parse_time
from judge.suspension.exclusions import BUILTIN, INCIDENT, Exclusion
from judge.suspension.rules import CLOCK_SKEW
from judge.suspension.state import (
    STATE_FIX,
    JudgeState,
    StateError,
    state_from_json,
    state_to_json,
    times_after,
)

_NULL_TAG = "tag:yaml.org,2002:null"
_FIELDS = {BUILTIN: ({"provider", "reason"}, {"since"}),
           INCIDENT: ({"provider", "reason", "added_at"}, {"expires", "added_by"})}


def load_state(path: Path, *, now: datetime | None = None) -> JudgeState:
    """The state in `path`; an empty state when the file does not exist yet. Given `now`, a state
    holding a past-only time after it (judge/suspension/state.py times_after) is refused (StoreError)."""
    raw = read_json(path, "state file", STATE_FIX)
    if raw is None:
        return JudgeState()
    try:
        state = state_from_json(raw, str(path))
    except StateError as exc:  # the file cannot be read as a state: a StoreError, like a broken JSON
        raise StoreError(str(exc)) from None
    if now is not None:
        refuse_future_times(state, path, now)
    return state


def refuse_future_times(state: JudgeState, path: Path, now: datetime) -> None:
    """StoreError naming the fields of `state` whose past-only times lie after `now` (+ clock skew)."""
    future = times_after(state, now + CLOCK_SKEW)
    if future:
        shown = ", ".join(future[:3]) + (f" and {len(future) - 3} more" if len(future) > 3 else "")
        raise StoreError(
            f"{path}: {shown} lie after now ({fmt_time(now)}): a clock set ahead or a hand edit. Kept, such a "
            "time refuses every later round or freezes a streak until that date. Nothing was changed: restore "
            "the state from the state branch's history, or correct those times")


def save_state(path: Path, state: JudgeState) -> None:
    atomic_write_json(path, state_to_json(state))


def load_exclusions(path: Path, layer: str) -> tuple[Exclusion, ...]:
    """Entries of builtin.yaml (layer "builtin") or incidents.yaml ("incident"); () when missing."""
    text = read_text(path, f"{layer} exclusion file")
    if text is None:
        return ()
    return parse_exclusions(text, layer, str(path))


def parse_exclusions(text: str, layer: str, source: str) -> tuple[Exclusion, ...]:
    """Validate an exclusion file's text; StoreError names the line of the first problem."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except RecursionError:
        raise StoreError(f"{source}: not valid YAML (nested too deeply); fix the syntax or revert it with git. "
                         "Nothing was written.") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" line {mark.line + 1}:" if mark is not None else ""
        raise StoreError(f"{source}:{line} not valid YAML ({getattr(exc, 'problem', exc)}); fix the syntax "
                         "(see the format in the file's header) or revert it with git. Nothing was written.") from None
    if root is None or (isinstance(root, yaml.ScalarNode) and root.tag == _NULL_TAG):
        return ()
    if not isinstance(root, yaml.MappingNode):
        _fail(source, root, "the top level must map model ids to lists of entries")
    entries: list[Exclusion] = []
    seen: set[str] = set()
    for key, value in root.value:
        model = key.value if isinstance(key, yaml.ScalarNode) else None
        if not is_valid_tag(model):
            _fail(source, key, f"model id {describe_invalid_tag(model)}")
        if model in seen:
            _fail(source, key, f"model {model} is listed twice; merge its entries under one key")
        seen.add(model)
        if isinstance(value, yaml.ScalarNode) and value.tag == _NULL_TAG:
            continue  # a model key with no entries yet
        if not isinstance(value, yaml.SequenceNode):
            _fail(source, value, f"{model}: expected a list of entries (- provider: ...)")
        spelled: dict[str, str] = {}
        for item in value.value:
            entry = _entry(source, layer, model, item)
            other = spelled.setdefault(entry.provider.casefold(), entry.provider)
            if other != entry.provider:  # one host to OpenRouter if it matches tags ignoring case
                _fail(source, item, f"{model}: provider {entry.provider} differs only by case from {other}; "
                                    "keep one spelling")
            entries.append(entry)
    return tuple(entries)


def _entry(source: str, layer: str, model: str, node: yaml.Node) -> Exclusion:
    if not isinstance(node, yaml.MappingNode):
        _fail(source, node, f"{model}: each entry must be a mapping with provider and reason")
    required, optional = _FIELDS[layer]
    fields: dict[str, str] = {}
    for key, value in node.value:
        name = key.value if isinstance(key, yaml.ScalarNode) else None
        if name not in required | optional:
            _fail(source, key, f"unknown field {name!a}; allowed: {', '.join(sorted(required | optional))}")
        if not isinstance(value, yaml.ScalarNode):
            _fail(source, value, f"{name}: expected a single value")
        if name in fields:  # YAML would silently keep the last one: which provider did the person mean?
            _fail(source, key, f"{model}: field {name} is given twice in one entry")
        fields[str(name)] = value.value
    missing = sorted(required - fields.keys())
    if missing:
        _fail(source, node, f"{model}: entry lacks {', '.join(missing)}")
    if not is_valid_tag(fields["provider"]):
        _fail(source, node, f"provider {describe_invalid_tag(fields['provider'])}")
    times = {}
    for name in ("since", "added_at", "expires"):
        if fields.get(name):
            times[name] = _time(source, node, name, fields[name])
    return Exclusion(model=model, provider=fields["provider"], layer=layer, reason=fields["reason"],
                     since=times.get("since") or times.get("added_at"), expires=times.get("expires"),
                     added_by=fields.get("added_by"), line=node.start_mark.line + 1)


def _time(source: str, node: yaml.Node, name: str, value: str) -> datetime:
    try:
        return parse_time(value, name)
    except TimeFormatError:
        pass
    try:
        return datetime.combine(parse_date(value, name), time(), tzinfo=UTC)
    except TimeFormatError:
        _fail(source, node, f"{name}: {value!r} is not a date or ISO 8601 time like 2026-11-29T22:30:00Z")


def _fail(source: str, node: yaml.Node, problem: str) -> NoReturn:
    raise StoreError(f"{source}: line {node.start_mark.line + 1}: {problem}. Fix the entry (the file's header "
                     "shows the format) or revert it with git. Nothing was written.")
