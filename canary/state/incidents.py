"""The incident layer's domain edits: add or remove one entry of exclusions/incidents.yaml, as text.

Pure functions over the file's text (canary/cli/commands/incident.py reads and writes the file).
PyYAML would drop comments on a round trip, and a round-trip YAML library (ruamel.yaml) re-indents
every hand-formatted section and loses the header of a file holding only comments, so the text is
edited line by line: the YAML node marks locate the model's section and the entry, one block in the
canonical form below is inserted or removed, and every other line stays byte for byte (comments and
key order included). The result is parsed again and must differ from the original by exactly that
one entry; otherwise nothing is written and the person is asked to edit by hand.

Canonical block (what `add` writes; indentation follows the model's existing entries):

    "deepseek/deepseek-chat-v3-0324":
      - provider: "aurora/fp8"
        reason: "stray punctuation at reply start"
        added_at: "2026-11-29T22:30:00Z"
        expires: "2026-11-30T22:30:00Z"     # only with --expires
        added_by: "alice"                   # only with --by
"""

from __future__ import annotations

from dataclasses import replace

import yaml

from canary.state.people_yaml import quoted
from core.layer_files import parse_exclusions
from core.layers import INCIDENT, Exclusion
from core.store import StoreError
from core.times import fmt_time

ENTRY_INDENT = 2  # dash column of entries under a model key, when the section has none yet


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
        lines += [f"{quoted(entry.model)}:\n", *_block(entry, ENTRY_INDENT)]
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


def _block(entry: Exclusion, indent: int) -> list[str]:
    pad = " " * indent
    fields = [("provider", entry.provider), ("reason", entry.reason), ("added_at", fmt_time(entry.since))]
    if entry.expires is not None:
        fields.append(("expires", fmt_time(entry.expires)))
    if entry.added_by:
        fields.append(("added_by", entry.added_by))
    return [f"{pad}{'- ' if i == 0 else '  '}{name}: {quoted(str(value))}\n" for i, (name, value) in enumerate(fields)]


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


__all__ = ["add_incident", "remove_incident"]
