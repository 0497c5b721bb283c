"""The incident layer's domain edits: add or remove one entry of exclusions/incidents.yaml.

Pure functions over the file's text (canary/cli/commands/incident.py reads and writes the file),
edited with ruamel.yaml in round-trip mode, which keeps comments, key order and quoting. Its emitter
writes the whole file with one indentation, so the indentation is read from the file's first entry
(the house format below when it has none), and the file must come back byte for byte from a load
and a dump before anything is edited: a line that would not (another section's indentation, extra
spaces after a colon, ...) is named and nothing is written.

ruamel.yaml files the comments that follow an entry under that entry, so the edits move them:
`add` puts the comments after a model's last entry below the new one, `remove` hands a removed
entry's to what precedes it. A comment on a line of its own therefore stays where it stands; only
the removed entry's own lines go (with its model key, when it was the last). A file of comments
only loads as nothing: its text is kept and the new section dumped after it, and a file left
without entries is its comments again, never `null` or `{}`. The result is parsed again
(core/layer_files.py) and compared line by line with the original: exactly the entry's lines in,
or out with no comment line among them (a comment between an entry's own keys would go with it),
or nothing is written and the person is asked to edit by hand.

House format (what `add` writes, as the file's header and docs/file-formats.md show it):

    "deepseek/deepseek-chat-v3-0324":
      - provider: "aurora/fp8"
        reason: "stray punctuation at reply start"
        added_at: "2026-11-29T22:30:00Z"
        expires: "2026-11-30T22:30:00Z"     # only with --expires
        added_by: "alice"                   # only with --by
"""

from __future__ import annotations

import difflib
import io
import unicodedata
from dataclasses import dataclass, replace
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import CommentMark, MarkedYAMLError, YAMLError
from ruamel.yaml.scalarstring import DoubleQuotedScalarString
from ruamel.yaml.tokens import CommentToken

from core.layer_files import parse_exclusions
from core.layers import INCIDENT, Exclusion
from core.store import StoreError
from core.times import fmt_time

UNSAFE_EDIT = ("the file's layout did not allow a safe automatic edit; edit it by hand (the header shows "
               "the format). Nothing was written.")
# Characters a double-quoted YAML scalar would carry unescaped but a reader cannot see (bidi overrides,
# zero-width spaces, private use, unassigned; lone surrogates from undecodable arguments).
INVISIBLE = frozenset({"Cf", "Co", "Cs", "Cn"})


@dataclass(frozen=True)
class Indent:
    """Where an entry's lines start: model keys sit at column 0."""

    dash: int  # the column of an entry's dash
    keys: int  # the column of an entry's keys


HOUSE = Indent(dash=2, keys=4)


def add_incident(text: str, source: str, entry: Exclusion) -> str:
    """`text` with `entry` appended to its model's section (created at the end when absent)."""
    before = parse_exclusions(text, INCIDENT, source)
    for e in before:
        if e.model == entry.model and e.provider.casefold() == entry.provider.casefold():
            same = "" if e.provider == entry.provider else f" (as {e.provider}: tags are compared ignoring case)"
            raise StoreError(f"{source}: line {e.line}: {entry.provider} is already listed for {entry.model}{same}; "
                             "remove it first to change it")
    for name, value in (("reason", entry.reason), ("added_by", entry.added_by or "")):
        _refuse_invisible(source, name, value)
    bom, text = _ended(text)
    yaml, root = _load(text, source)
    item = _item(entry)
    if root is None:  # empty or comments only: keep them, the section goes after
        new_text = text + _dump(yaml, CommentedMap([(DoubleQuotedScalarString(entry.model), CommentedSeq([item]))]))
    else:
        _append(root, source, entry.model, item)
        new_text = _dump(yaml, root)
    _verify(source, text, new_text, before + (entry,), "insert")
    return bom + new_text


def remove_incident(text: str, source: str, model: str, provider: str) -> str:
    """`text` without the entries of `provider` under `model` (and without the model key if now empty)."""
    before = parse_exclusions(text, INCIDENT, source)
    if not any(e.model == model and e.provider == provider for e in before):
        raise StoreError(f"{source}: no incident for {provider} of {model}")
    bom, text = _ended(text)
    yaml, root = _load(text, source)
    entries = root.get(model) if root is not None else None
    if root is None or not isinstance(entries, CommentedSeq) or entries.fa.flow_style():
        raise StoreError(f"{source}: the entries of {model} are not a block list (- provider: ...); "
                         "remove the incident by hand")
    doomed = [i for i, item in enumerate(entries)
              if isinstance(item, CommentedMap) and item.get("provider") == provider]
    for i in reversed(doomed):
        after = _take_after(entries[i], _last_key(entries[i]))
        if i > 0:
            _give_after(entries[i - 1], _last_key(entries[i - 1]), after)
        else:
            _give_before(entries.ca, after)
        del entries[i]
    if entries:
        new_text = _dump(yaml, root)
    else:
        new_text = _remove_section(yaml, root, model)
    _verify(source, text, new_text, tuple(e for e in before if not (e.model == model and e.provider == provider)),
            "delete")
    return bom + new_text


def _append(root: CommentedMap, source: str, model: str, item: CommentedMap) -> None:
    if model not in root:
        root[DoubleQuotedScalarString(model)] = CommentedSeq([item])
        return
    entries = root[model]
    if entries is None:  # a model key with no entries yet: its comments below move under the entry
        root[model] = CommentedSeq([item])
        _give_after(item, _last_key(item), _take_after(root, model))
    elif isinstance(entries, CommentedSeq) and entries and not entries.fa.flow_style():
        _give_after(item, _last_key(item), _take_after(entries[-1], _last_key(entries[-1])))
        entries.append(item)
    else:
        line = root.lc.key(model)[0] + 1
        raise StoreError(f"{source}: line {line}: the entries of {model} are not a block list (- provider: ...); "
                         "add the incident by hand")


def _remove_section(yaml: YAML, root: CommentedMap, model: str) -> str:
    """The text without `model`'s key, whose own-line comments go to what precedes it."""
    entries = root[model]
    kept = _take_after(root, model) + _lines_before(entries.ca)
    keys = list(root)
    at = keys.index(model)
    del root[model]
    if at > 0:
        previous = keys[at - 1]
        value = root[previous]
        if isinstance(value, CommentedSeq) and value and not value.fa.flow_style():
            _give_after(value[-1], _last_key(value[-1]), kept)
        else:
            _give_after(root, previous, kept)
    else:
        _give_before(root.ca, kept)
    if not root:  # the comments alone: dumped, an empty mapping would read `{}`
        return _lines_before(root.ca)
    return _dump(yaml, root)


def _last_key(item: CommentedMap) -> Any:
    return list(item)[-1]


def _take_after(holder: CommentedMap, key: Any) -> str:
    """The lines after `key`'s line that ruamel.yaml filed under it (own-line comments, blank lines), taken away."""
    slot = holder.ca.items.get(key)
    if not slot or slot[2] is None:
        return ""
    line_end, _, after = str(slot[2].value).partition("\n")
    slot[2] = CommentToken(line_end + "\n", slot[2].start_mark, None) if line_end else None
    return after


def _give_after(holder: CommentedMap, key: Any, lines: str) -> None:
    """Put `lines` (whole lines of comments) right after `key`'s line, after those already there."""
    if not lines:
        return
    slot = holder.ca.items.setdefault(key, [None, None, None, None])
    if slot[2] is None:
        slot[2] = CommentToken("\n" + lines, CommentMark(0), None)
    else:
        slot[2].value = slot[2].value + lines


def _lines_before(comments: Any) -> str:
    """The comments written before a collection's first line, as the file's lines."""
    tokens = (comments.comment or [None, None])[1] or ()
    # The emitter starts a token at its column (the lines below its first carry their own spaces).
    return "".join(t.value if t.value.startswith("\n") else " " * t.start_mark.column + t.value for t in tokens)


def _give_before(comments: Any, lines: str) -> None:
    """Put `lines` among the comments written before a collection's first line (a list's, or the file's)."""
    if not lines:
        return
    if comments.comment is None:
        comments.comment = [None, []]
    if comments.comment[1] is None:
        comments.comment[1] = []
    comments.comment[1].append(CommentToken(lines, CommentMark(0), None))


def _item(entry: Exclusion) -> CommentedMap:
    fields = [("provider", entry.provider), ("reason", entry.reason), ("added_at", fmt_time(entry.since)),
              ("expires", fmt_time(entry.expires)), ("added_by", entry.added_by or None)]
    return CommentedMap((name, DoubleQuotedScalarString(value)) for name, value in fields if value is not None)


def _refuse_invisible(source: str, name: str, value: str) -> None:
    odd = next((c for c in value if unicodedata.category(c) in INVISIBLE), None)
    if odd is not None:
        raise StoreError(f"{source}: {name}: U+{ord(odd):04X} ({unicodedata.name(odd, 'unnamed')}) is a character "
                         f"a reader cannot see; write the {name} without it. Nothing was written.")


def _ended(text: str) -> tuple[str, str]:
    """The byte-order mark some editors put first (kept aside: the emitter would drop it) and the text, ended."""
    bom, body = ("\ufeff", text[1:]) if text.startswith("\ufeff") else ("", text)
    return bom, (body + "\n" if body and not body.endswith("\n") else body)


def _yaml(indent: Indent, explicit_start: bool) -> YAML:
    yaml = YAML()  # round-trip mode
    yaml.indent(mapping=2, sequence=indent.keys, offset=indent.dash)
    yaml.preserve_quotes = True
    yaml.width = 1 << 30  # never fold a long reason
    yaml.explicit_start = explicit_start
    return yaml


def _load(text: str, source: str) -> tuple[YAML, CommentedMap | None]:
    """The round-trip tree and the YAML that writes it back as it was (None: a file without entries)."""
    start = text.startswith("---")
    try:
        root = _yaml(HOUSE, start).load(text)
    except YAMLError as e:  # core/layer_files.py read it first, so seldom reached
        mark = e.problem_mark if isinstance(e, MarkedYAMLError) else None
        where = f"line {mark.line + 1}: " if mark is not None else ""
        raise StoreError(f"{source}: {where}not YAML ({getattr(e, 'problem', None) or type(e).__name__})") from e
    if root is None:
        if any(line.strip() and not line.lstrip().startswith("#") for line in text.splitlines()):
            raise StoreError(f"{source}: {UNSAFE_EDIT}")
        return _yaml(HOUSE, start), None
    if not isinstance(root, CommentedMap):
        raise StoreError(f"{source}: {UNSAFE_EDIT}")
    yaml = _yaml(_indent_of(root), start)
    again = _dump(yaml, yaml.load(text))
    if again != text:
        old, new = text.splitlines(), again.splitlines()
        n = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), min(len(old), len(new)))
        became = repr(new[n]) if n < len(new) else "nothing"
        raise StoreError(f"{source}: line {n + 1}: an automatic edit would rewrite this line as {became} (one "
                         "layout for the whole file: the first entry's indentation, one space after a colon); "
                         "write it so, or edit the file by hand. Nothing was written.")
    return yaml, yaml.load(text)


def _indent_of(root: CommentedMap) -> Indent:
    for entries in root.values():
        if isinstance(entries, CommentedSeq) and entries and not entries.fa.flow_style() \
                and isinstance(entries[0], CommentedMap):
            return Indent(dash=entries.lc.col, keys=entries[0].lc.col)
    return HOUSE


def _dump(yaml: YAML, root: CommentedMap) -> str:
    out = io.StringIO()
    yaml.dump(root, out)
    return str(out.getvalue())


def _verify(source: str, text: str, new_text: str, expected: tuple[Exclusion, ...], change: str) -> None:
    """`new_text` holds exactly `expected`, and differs from `text` only by lines inserted (or deleted: no comment)."""
    def key(e: Exclusion) -> tuple[object, ...]:
        e = replace(e, line=None)
        return (e.model, e.provider, e.reason, e.since, e.expires, e.added_by)

    try:
        after = parse_exclusions(new_text, INCIDENT, source)
    except StoreError:
        after = None
    old, new = text.splitlines(), new_text.splitlines()
    steps = [(op, old[i1:i2]) for op, i1, i2, _, _ in
             difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes() if op != "equal"]
    lines_kept = all(op == change and not any(line.lstrip().startswith("#") for line in gone) for op, gone in steps)
    if after is None or not lines_kept or sorted(map(key, after), key=repr) != sorted(map(key, expected), key=repr):
        raise StoreError(f"{source}: {UNSAFE_EDIT}")


__all__ = ["add_incident", "remove_incident"]
