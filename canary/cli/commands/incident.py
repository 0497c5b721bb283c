"""`canary incident add|remove`: edit exclusions/incidents.yaml without disturbing people's text.

PyYAML would drop comments on a round trip, so the file is edited line by line: the YAML node
marks locate the model's section and the entry, one block in the canonical form below is
inserted or removed, and every other line stays byte for byte. The result is parsed again and
must differ from the original by exactly that one entry; otherwise nothing is written and the
person is asked to edit by hand.

Canonical block (what `add` writes; indentation follows the model's existing entries):

    "deepseek/deepseek-chat-v3-0324":
      - provider: "aurora/fp8"
        reason: "stray punctuation at reply start"
        added_at: "2026-11-29T22:30:00Z"
        expires: "2026-11-30T22:30:00Z"     # only with --expires
        added_by: "alice"                   # only with --by
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace

import yaml

from canary.cli.commands._options import add_common, config_of, now_of
from canary.state import audit
from core.layer_files import parse_exclusions
from core.layers import INCIDENT, Exclusion
from core.store import StoreError, atomic_write_text, read_text
from core.tags import describe_invalid_tag, is_valid_tag
from core.times import fmt_time, parse_time
from judge.suspension.decisions import Action, Decision, Rule

ENTRY_INDENT = 2  # dash column of entries under a model key, when the section has none yet


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("incident", help="add or remove a runtime incident exclusion")
    sub = p.add_subparsers(dest="incident_action", metavar="add|remove", required=True)
    for name in ("add", "remove"):
        q = sub.add_parser(name, help=f"{name} an incident exclusion")
        q.add_argument("--model", required=True)
        q.add_argument("--provider", required=True)
        q.add_argument("--reason", required=True)
        if name == "add":
            q.add_argument("--expires", default=None, metavar="ISO8601", help="when the incident ends by itself")
            q.add_argument("--by", default=None, help="who added it (recorded as added_by)")
        add_common(q, files=("incidents", "audit"))
        q.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    config = config_of(args)
    path = config.paths.incidents
    for value in (args.model, args.provider):
        if not is_valid_tag(value):
            raise StoreError(describe_invalid_tag(value))
    now = now_of(args)
    audit.check_appendable(config.paths.audit)
    text = read_text(path, "incident file") or ""
    if args.incident_action == "add":
        expires = parse_time(args.expires, "--expires") if args.expires else None
        entry = Exclusion(args.model, args.provider, INCIDENT, args.reason, since=now, expires=expires,
                          added_by=args.by)
        new_text = add_incident(text, str(path), entry)
        decision = Decision(args.model, args.provider, Action.INCIDENT_ADD, Rule.MANUAL, args.reason, until=expires)
    else:
        new_text = remove_incident(text, str(path), args.model, args.provider)
        decision = Decision(args.model, args.provider, Action.INCIDENT_REMOVE, Rule.MANUAL, args.reason)
    atomic_write_text(path, new_text)
    audit.append(config.paths.audit, audit.decision_lines([decision], round_id=None, mode=config.mode, now=now))
    print(f"canary incident: {args.incident_action} {args.provider} for {args.model} in {path}")
    return 0


def add_incident(text: str, source: str, entry: Exclusion) -> str:
    """`text` with `entry` appended to its model's section (created at the end when absent)."""
    before = parse_exclusions(text, INCIDENT, source)
    for e in before:
        if e.model == entry.model and e.provider.casefold() == entry.provider.casefold():
            same = "" if e.provider == entry.provider else f" (as {e.provider}: tags are compared ignoring case)"
            raise StoreError(f"{source}: line {e.line}: {entry.provider} is already listed for {entry.model}{same}; "
                             "remove it first to change it")
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    section = _section(text, entry.model)
    if section is None:
        lines += [f"{_q(entry.model)}:\n", *_block(entry, ENTRY_INDENT)]
    else:
        key, value = section
        if isinstance(value, yaml.SequenceNode) and not value.flow_style and value.value:
            first = value.value[0].start_mark
            indent = max(lines[first.line].rfind("-", 0, first.column), 0)  # the dash's column
            at = max(_end_line(item) for item in value.value)
        elif isinstance(value, yaml.ScalarNode) and value.tag.endswith(":null"):
            indent, at = ENTRY_INDENT, key.start_mark.line + 1
        else:
            raise StoreError(f"{source}: line {key.start_mark.line + 1}: the entries of {entry.model} are not "
                             "a block list (- provider: ...); add the incident by hand")
        lines[at:at] = _block(entry, indent)
    new_text = "".join(lines)
    _verify(source, new_text, before + (entry,))
    return new_text


def remove_incident(text: str, source: str, model: str, provider: str) -> str:
    """`text` without the entries of `provider` under `model` (and without the model key if now empty)."""
    before = parse_exclusions(text, INCIDENT, source)
    section = _section(text, model)
    if section is None or not isinstance(section[1], yaml.SequenceNode):
        raise StoreError(f"{source}: no incident for {provider} of {model}")
    key, value = section
    lines = text.splitlines(keepends=True)
    doomed = [item for item in value.value if isinstance(item, yaml.MappingNode) and _provider(item) == provider]
    if not doomed:
        raise StoreError(f"{source}: no incident for {provider} of {model}")
    ranges = []
    for item in doomed:
        start = item.start_mark.line
        if lines[start][: item.start_mark.column].strip() != "-":
            raise StoreError(f"{source}: line {start + 1}: the entry is not in the canonical block form; "
                             "remove it by hand")
        ranges.append((start, _end_line(item)))
    if len(doomed) == len(value.value) and lines[key.start_mark.line].rstrip().endswith(":"):
        ranges.append((key.start_mark.line, key.start_mark.line + 1))
    for start, end in sorted(ranges, reverse=True):
        del lines[start:end]
    new_text = "".join(lines)
    _verify(source, new_text, tuple(e for e in before if not (e.model == model and e.provider == provider)))
    return new_text


def _section(text: str, model: str) -> tuple[yaml.Node, yaml.Node] | None:
    root = yaml.compose(text, Loader=yaml.SafeLoader)
    if not isinstance(root, yaml.MappingNode):
        return None
    return next(((k, v) for k, v in root.value if k.value == model), None)


def _provider(item: yaml.MappingNode) -> str | None:
    return next((v.value for k, v in item.value if k.value == "provider"), None)


def _end_line(node: yaml.Node) -> int:
    """Index of the first line after `node`'s last scalar (block collection marks overshoot comments)."""
    if isinstance(node, yaml.MappingNode):
        return max(_end_line(n) for pair in node.value for n in pair)
    if isinstance(node, yaml.SequenceNode) and node.value:
        return max(_end_line(n) for n in node.value)
    end = node.end_mark
    return int(end.line) if end.column == 0 else int(end.line) + 1


def _q(value: str) -> str:
    # A JSON string is a valid YAML double-quoted scalar; ASCII escapes keep odd Unicode harmless.
    return json.dumps(value, ensure_ascii=True)


def _block(entry: Exclusion, indent: int) -> list[str]:
    pad = " " * indent
    fields = [("provider", entry.provider), ("reason", entry.reason), ("added_at", fmt_time(entry.since))]
    if entry.expires is not None:
        fields.append(("expires", fmt_time(entry.expires)))
    if entry.added_by:
        fields.append(("added_by", entry.added_by))
    return [f"{pad}{'- ' if i == 0 else '  '}{name}: {_q(str(value))}\n" for i, (name, value) in enumerate(fields)]


def _verify(source: str, new_text: str, expected: tuple[Exclusion, ...]) -> None:
    def key(e: Exclusion) -> tuple[object, ...]:
        e = replace(e, line=None)
        return (e.model, e.provider, e.reason, e.since, e.expires, e.added_by)

    try:
        after = parse_exclusions(new_text, INCIDENT, source)
    except StoreError:
        after = None
    if after is None or sorted(map(key, after), key=repr) != sorted(map(key, expected), key=repr):
        raise StoreError(f"{source}: the file's layout did not allow a safe automatic edit; "
                         "edit it by hand (the header shows the format). Nothing was written.")


__all__ = ["add_incident", "register", "remove_incident"]
