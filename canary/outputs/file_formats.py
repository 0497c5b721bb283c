"""The field tables of docs/file-formats.md, generated from the records that read and write the files.

    python -m canary.outputs.file_formats docs/file-formats.md     # rewrite the generated blocks

A row per field the file holds (its type and the comment beside it in the source; one declared
UNWRITTEN, core/field_rules.py, is left out), then the keys it derives (its Derived properties, each
described by its docstring's first line). tests/canary/outputs/test_file_formats.py checks the page.
"""

from __future__ import annotations

import dataclasses
import inspect
import io
import re
import sys
import tokenize
from pathlib import Path
from typing import Any

from core.field_rules import UNWRITTEN, declared, derived
from core.production import CountCell, ProductionRecord, ReportCell, ServedCell
from core.results import (
    AttemptResult,
    CaseResult,
    ControlNote,
    Incomplete,
    ModelEntry,
    ProviderUsage,
    RoundResults,
)
from judge.suspension.card import Card
from judge.suspension.decisions import Decision, Evidence, Leak, RequestRecord, RoundDecisions


@dataclasses.dataclass(frozen=True, slots=True)
class Table:
    """One record's table: where it sits in the file (its rows: its fields, then its Derived properties)."""

    where: str
    record: type[Any]
    skip: tuple[str, ...] = ()     # fields the file holds elsewhere (a nested record's own table)
    note: str = ""


BLOCKS: dict[str, tuple[Table, ...]] = {
    "results-json": (
        Table("the top level of reports/results.json", RoundResults),
        Table("each entry of `incomplete`", Incomplete),
        Table("each model of `models`", ModelEntry),
        Table("each entry of `cases`", CaseResult),
        Table("each entry of a case's `attempts`", AttemptResult),
        Table("each entry of `weak_probes` and `unprobed_controls`", ControlNote),
        Table("each provider of `usage`", ProviderUsage),
    ),
    "decisions-json": (
        Table("the top level of reports/decisions.json", RoundDecisions, skip=("request",),
              note="The fields of `request` (the table below) are written at the top level beside these."),
        Table("the request that made the decisions (top-level keys)", RequestRecord),
        Table("each entry of `decisions` (and each decision line of state/audit.jsonl)", Decision,
              note="`until` and `rung` are left out when absent; `card` and `weak_evidence` when there is no card."),
        Table("each entry of a decision's `evidence`", Evidence),
        Table("each entry of a decision's `card`", Card),
        Table("each entry of `leaks` (written when there is one: judge/suspension/route_audit.py)", Leak),
    ),
    "production-json": (
        Table("a production record, production/<exporter>/<window start>.json", ProductionRecord,
              note="Its JSON Schema: [production.schema.json](production.schema.json). Any other key, or a string "
                   "outside these patterns and words, refuses the whole record."),
        Table("each entry of `counts`", CountCell),
        Table("each entry of `served`", ServedCell),
        Table("each entry of `reports`", ReportCell),
    ),
}

_BLOCK = re.compile(r"(<!-- generated: (?P<name>[a-z0-9-]+) -->\n)(?P<body>.*?)(<!-- end -->)", re.S)


def generated(name: str) -> str:
    """The Markdown of one block (what sits between its markers)."""
    return "".join(_table(t) for t in BLOCKS[name])


def rewrite(page: str) -> str:
    """`page` with each block this module generates replaced by its current text (other blocks,
    status.json's, are kept as they are)."""
    return _BLOCK.sub(lambda m: m.group(1) + generated(m.group("name")) + m.group(4)
                      if m.group("name") in BLOCKS else m.group(0), page)


def _table(table: Table) -> str:
    doc = (inspect.getdoc(table.record) or "").split("\n")[0]
    lines = [f"**{table.record.__name__}**, {table.where}: {doc}", "", "| key | type | meaning |", "|---|---|---|"]
    comments = field_comments(table.record)
    for name, kind in _fields(table.record):
        if name in table.skip:
            continue
        lines.append(f"| `{name}` | `{_cell(_type(kind))}` | {_cell(comments.get(name, ''))} |")
    record: type = table.record  # (a class is hashable: mypy needs telling, for functools.cache)
    for name, _ in derived(record):
        member = vars(record)[name]
        kind = _unannotated(str(member.fget.__annotations__["return"]))
        lines.append(f"| `{name}` | `{_cell(_type(kind))}` | {_cell(_describe(member))} |")
    if table.note:
        lines += ["", table.note]
    return "\n".join(lines) + "\n\n"


def _fields(record: type[Any]) -> list[tuple[str, str]]:
    """The fields a record's file holds and their annotations as written, in order (the type only:
    what sits beside it in `Annotated[...]` says how it is read and written, not what it is)."""
    kind: type = record  # (a class is hashable: mypy needs telling, for functools.cache)
    written = {f.name for f in declared(kind) if UNWRITTEN not in f.keys}
    source = ({f.name: f.type for f in dataclasses.fields(record)} if dataclasses.is_dataclass(record)
              else record.__annotations__)
    return [(name, _unannotated(str(source[name]))) for name in source if name in written]


def _unannotated(annotation: str) -> str:
    """`Annotated[float | None, ReadBy(measurement)]` as `float | None`."""
    if not annotation.startswith("Annotated["):
        return annotation
    depth = 0
    for i, char in enumerate(annotation[len("Annotated["):], len("Annotated[")):
        depth += {"[": 1, "(": 1, "]": -1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            return annotation[len("Annotated["):i]
    return annotation


def field_comments(record: type[Any]) -> dict[str, str]:
    """Each field's comment in the class source: the one at the end of its line, else the comment
    lines just above it."""
    source = inspect.getsource(record)
    out: dict[str, str] = {}
    above: list[str] = []
    for line in source.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            above.append(stripped.lstrip("# ").strip())
            continue
        match = re.match(r"\s{4}(\w+): ", line)
        if match is None:
            above = []
            continue
        out[match.group(1)] = _trailing_comment(line) or " ".join(above)
        above = []
    return out


def _trailing_comment(line: str) -> str:
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(line.strip() + "\n").readline))
    except (tokenize.TokenError, SyntaxError):
        return ""
    return next((t.string.lstrip("# ").strip() for t in tokens if t.type == tokenize.COMMENT), "")


def _describe(member: property) -> str:
    return (inspect.getdoc(member.fget) or "").split("\n")[0]


def _type(annotation: Any) -> str:
    return str(annotation).replace("typing.", "")


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def main(argv: list[str]) -> int:
    """Rewrite the generated blocks of each Markdown file named."""
    for name in argv:
        path = Path(name)
        path.write_text(rewrite(path.read_text(encoding="utf-8")), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
