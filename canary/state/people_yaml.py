"""The one editor of people's files (builtin, incidents, silences, maintenance): an entry added, removed
or changed, every other byte kept, or nothing written (docs/file-formats.md, exclusion files).

ruamel.yaml's round-trip emitter writes the whole file with one indentation, so it is read from the
first entry (the house format when there is none) and the file must come back byte for byte from a
load and a dump before any edit. ruamel files the comments that follow an entry under that entry, so
`add` moves those after a list's last entry below the new one and `remove` hands a removed entry's to
what precedes it: a comment on a line of its own stays where it stands. A file of comments only loads
as nothing and keeps its text. `locked` flocks the file's folder, not a lock file beside it: nothing
is left behind for git to see.
"""

from __future__ import annotations

import dataclasses
import difflib
import fcntl
import getpass
import io
import os
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import CommentMark, MarkedYAMLError, YAMLError
from ruamel.yaml.scalarstring import DoubleQuotedScalarString
from ruamel.yaml.tokens import CommentToken

from core.layer_files import Declared, Walked, walk
from core.store import StoreError, read_text

UNSAFE_EDIT = ("the file's layout did not allow a safe automatic edit; edit it by hand (the header shows "
               "the format). Nothing was written.")
# Characters a double-quoted YAML scalar would carry unescaped but a reader cannot see (bidi overrides,
# zero-width spaces, private use, unassigned; lone surrogates from undecodable arguments).
INVISIBLE = frozenset({"Cf", "Co", "Cs", "Cn"})
Match = Callable[[Walked[Any]], bool]


# Where an entry's lines start, (its dash's column, its keys'), model keys at column 0: by model, or a list.
HOUSE = {True: (2, 4), False: (0, 2)}


@contextmanager
def locked(path: Path, what: str) -> Iterator[str]:
    """The file's text ("" when it does not exist yet), read while holding the edit lock of its folder,
    held until the block ends: write the file (and the audit line) inside it."""
    folder = Path(path).parent
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield read_text(path, what) or ""
    finally:
        os.close(fd)  # releases the lock


def author(given: str | None) -> str:
    """Who writes an entry (silences' and windows' `author`): as given, else $GITHUB_ACTOR, else the login."""
    if given:
        return given
    try:
        return os.environ.get("GITHUB_ACTOR") or getpass.getuser()
    except OSError:  # no login name (a container without a passwd entry)
        raise StoreError("who is writing this entry? pass --author NAME") from None


def add(text: str, source: str, entry: Declared, model: str | None = None) -> str:
    """`text` with `entry` appended: to `model`'s list (created at the end when absent) in a file of
    models (the exclusion files), else to the file's list."""
    for f in dataclasses.fields(entry):
        value = getattr(entry, f.name)
        odd = next((c for c in value or "" if unicodedata.category(c) in INVISIBLE), None)
        if odd is not None:
            raise StoreError(f"{source}: {f.name}: U+{ord(odd):04X} ({unicodedata.name(odd, 'unnamed')}) is a "
                             f"character a reader cannot see; write the {f.name} without it. Nothing was written.")
    bom, newline, text = _ended(text, source)
    before = walk(text, source, type(entry))  # the file as it is must read
    yaml, root = _load(text, source, model is not None)
    item = _item(entry)
    if root is None:  # empty or comments only: keep them, the entry goes after
        new_text = text + _dump(yaml, CommentedSeq([item]) if model is None else
                                CommentedMap([(DoubleQuotedScalarString(model), CommentedSeq([item]))]))
    else:
        if model is None:
            _append(root, f"{source}: the entries", item)
        elif model not in root:
            root[DoubleQuotedScalarString(model)] = CommentedSeq([item])
        elif root[model] is None:  # a model key with no entries yet: its comments below move under the entry
            root[model] = CommentedSeq([item])
            _give_after(item, _last_key(item), _take_after(root, model))
        else:
            _append(root[model], f"{source}: line {root.lc.key(model)[0] + 1}: the entries of {model}", item)
        new_text = _dump(yaml, root)
    added = Walked(model if model is not None else getattr(entry, "model", None), entry, 0)
    _verify(source, text, new_text, type(entry), [*before, added], "insert")
    return bom + new_text.replace("\n", newline)


def remove(text: str, source: str, kind: type[Declared], match: Match) -> str:
    """`text` without the entries `match` picks (and without a model key left with none)."""
    bom, newline, text, before, yaml, root = _picked(text, source, kind, match)
    for model, entries, doomed in reversed(_lists(root, source, before, match)):
        for i in reversed(doomed):
            after = _take_after(entries[i], _last_key(entries[i]))
            if i > 0:
                _give_after(entries[i - 1], _last_key(entries[i - 1]), after)
            else:
                _give_before(entries.ca, after)
            del entries[i]
        if not entries and model is not None:
            _remove_section(root, model)
    new_text = _dump(yaml, root) if root else _lines_before(root.ca)  # the comments alone, never `{}` or `[]`
    _verify(source, text, new_text, kind, [w for w in before if not match(w)], "delete")
    return bom + new_text.replace("\n", newline)


def change(text: str, source: str, kind: type[Declared], match: Match, values: dict[str, str]) -> str:
    """`text` with `values` written over the fields of the entries `match` picks, each on its own line."""
    bom, newline, text, before, yaml, root = _picked(text, source, kind, match)
    for _, entries, picked in _lists(root, source, before, match):
        for i in picked:
            for name, value in values.items():
                entries[i][name] = DoubleQuotedScalarString(value)
    expected = [dataclasses.replace(w, entry=dataclasses.replace(w.entry, **values)) if match(w) else w
                for w in before]
    _verify(source, text, _dump(yaml, root), kind, expected, "replace")
    return bom + _dump(yaml, root).replace("\n", newline)


def _picked(text: str, source: str, kind: type[Declared], match: Match
            ) -> tuple[str, str, str, list[Walked[Any]], YAML, Any]:
    """What `remove` and `change` start from: `_ended`'s three, the entries walked, the YAML and its tree."""
    bom, newline, text = _ended(text, source)
    before = walk(text, source, kind)
    yaml, root = _load(text, source, not any(f.name == "model" for f in dataclasses.fields(kind)))
    if root is None or not any(map(match, before)):
        raise StoreError(f"{source}: no such entry. Nothing was written.")
    return bom, newline, text, before, yaml, root


def _lists(root: Any, source: str, walked: list[Walked[Any]], match: Match
           ) -> list[tuple[str | None, CommentedSeq, list[int]]]:
    """Each block list of the tree holding an entry `match` picks: (its model key or None, the list, the
    picked positions); the tree's entries come in the walk's order."""
    lists = [(None, root)] if isinstance(root, CommentedSeq) else \
        [(model, entries) for model, entries in root.items() if entries is not None]
    out, n = [], 0
    for model, entries in lists:
        picked = [i for i in range(len(entries)) if match(walked[n + i])]
        n += len(entries)
        if picked and (not isinstance(entries, CommentedSeq) or entries.fa.flow_style()):
            where = f"the entries of {model}" if model is not None else "the entries"
            raise StoreError(f"{source}: {where} are not a block list (- ...); edit them by hand")
        if picked:
            out.append((model, entries, picked))
    return out


def _append(entries: Any, where: str, item: CommentedMap) -> None:
    if not isinstance(entries, CommentedSeq) or not entries or entries.fa.flow_style():
        raise StoreError(f"{where} are not a block list (- ...); add the entry by hand")
    _give_after(item, _last_key(item), _take_after(entries[-1], _last_key(entries[-1])))
    entries.append(item)


def _remove_section(root: CommentedMap, model: str) -> None:
    """`root` without `model`'s key, whose own-line comments go to what precedes it."""
    kept = _take_after(root, model) + _lines_before(root[model].ca)
    keys = list(root)
    at = keys.index(model)
    del root[model]
    if at == 0:
        _give_before(root.ca, kept)
        return
    previous = root[keys[at - 1]]
    if isinstance(previous, CommentedSeq) and previous and not previous.fa.flow_style():
        _give_after(previous[-1], _last_key(previous[-1]), kept)
    else:
        _give_after(root, keys[at - 1], kept)


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


def _item(entry: Declared) -> CommentedMap:
    """An entry as the house writes it: its declared fields in order, each double-quoted, absent ones left out."""
    return CommentedMap((f.name, DoubleQuotedScalarString(getattr(entry, f.name))) for f in dataclasses.fields(entry)
                        if getattr(entry, f.name) is not None)


def _ended(text: str, source: str) -> tuple[str, str, str]:
    """(byte-order mark kept aside, as the emitter would drop it; the file's line ending; the text in "\\n" lines)."""
    bom, body = ("\ufeff", text[1:]) if text.startswith("\ufeff") else ("", text)
    crlf = body.count("\r\n")
    if body.count("\r") != crlf or (crlf and crlf != body.count("\n")):
        raise StoreError(f"{source}: mixes line endings (CRLF and LF, or a lone CR); give every line the same "
                         "ending (your editor can convert it) and try again. Nothing was written.")
    body = body.replace("\r\n", "\n")
    return bom, "\r\n" if crlf else "\n", body + "\n" if body and not body.endswith("\n") else body


def _yaml(indent: tuple[int, int], explicit_start: bool) -> YAML:
    yaml = YAML()  # round-trip mode
    yaml.indent(mapping=2, sequence=indent[1], offset=indent[0])
    yaml.preserve_quotes = True
    yaml.width = 1 << 30  # never fold a long reason
    yaml.explicit_start = explicit_start
    return yaml


def _load(text: str, source: str, by_model: bool) -> tuple[YAML, Any]:
    """The round-trip tree and the YAML that writes it back as it was (None: a file without entries)."""
    start = text.startswith("---")
    try:
        root = _yaml(HOUSE[by_model], start).load(text)
    except YAMLError as e:  # core/layer_files.py read it first, so seldom reached
        mark = e.problem_mark if isinstance(e, MarkedYAMLError) else None
        where = f"line {mark.line + 1}: " if mark is not None else ""
        raise StoreError(f"{source}: {where}not YAML ({getattr(e, 'problem', None) or type(e).__name__})") from e
    if root is None:
        if any(line.strip() and not line.lstrip().startswith("#") for line in text.splitlines()):
            raise StoreError(f"{source}: {UNSAFE_EDIT}")
        return _yaml(HOUSE[by_model], start), None
    if not isinstance(root, CommentedMap if by_model else CommentedSeq):
        raise StoreError(f"{source}: {UNSAFE_EDIT}")
    if root.fa.flow_style():  # `[{...}]`: its emitter fails on some (a comment before it)
        raise StoreError(f"{source}: the entries are not a block list (- ...); edit the file by hand")
    yaml = _yaml(_indent_of(root, by_model), start)
    again = _dump(yaml, yaml.load(text))
    if again != text:
        old, new = text.splitlines(), again.splitlines()
        n = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), min(len(old), len(new)))
        became = repr(new[n]) if n < len(new) else "nothing"
        raise StoreError(f"{source}: line {n + 1}: an automatic edit would rewrite this line as {became} (one "
                         "layout for the whole file: the first entry's indentation, one space after a colon); "
                         "write it so, or edit the file by hand. Nothing was written.")
    return yaml, yaml.load(text)


def _indent_of(root: Any, by_model: bool) -> tuple[int, int]:
    for entries in root.values() if by_model else [root]:
        if isinstance(entries, CommentedSeq) and entries and not entries.fa.flow_style() \
                and isinstance(entries[0], CommentedMap):
            return entries.lc.col, entries[0].lc.col
    return HOUSE[by_model]


def _dump(yaml: YAML, root: Any) -> str:
    out = io.StringIO()
    yaml.dump(root, out)
    return str(out.getvalue())


def _verify(source: str, text: str, new_text: str, kind: type[Declared], expected: list[Walked[Any]],
            edit: str) -> None:
    """`new_text` holds exactly `expected`, and differs from `text` only by lines inserted, deleted (no
    comment among them) or replaced one for one."""
    try:
        after = walk(new_text, source, kind)
    except StoreError:
        after = None
    old, new = text.splitlines(), new_text.splitlines()
    steps = [(op, old[i1:i2], new[j1:j2]) for op, i1, i2, j1, j2 in
             difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes() if op != "equal"]
    lines_kept = all(op == edit and not any(line.lstrip().startswith("#") for line in gone)
                     and (op != "replace" or len(gone) == len(came)) for op, gone, came in steps)
    if after is None or not lines_kept or Counter((w.model, w.entry) for w in after) != Counter(
            (w.model, w.entry) for w in expected):
        raise StoreError(f"{source}: {UNSAFE_EDIT}")


__all__ = ["add", "author", "change", "locked", "remove"]
