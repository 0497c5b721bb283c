"""The docs' table of canary.yaml keys, generated from the file's declaration (core/config.py).

Every key, its default and its `Meta(description=...)` come from `ConfigFile`, so the table cannot
drift; `python -m core.config_docs` rewrites the `<!-- generated: config-keys -->` block of every page
that has one (tests/test_docs.py fails until it is run after a change to the declaration).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from msgspec import NODEFAULT
from msgspec import inspect as mi

from core.config import ConfigFile

BEGIN = "<!-- generated: config-keys -->"
END = "<!-- end -->"
DOCS = Path(__file__).resolve().parents[1] / "docs"


def config_keys_table() -> str:
    """The Markdown table: one row per key of canary.yaml, dotted, with its default and meaning."""
    lines = ["| key | default | what it does |", "|---|---|---|"]
    lines += [f"| `{key}` | `{default}` | {what} |" for key, default, what in rows(mi.type_info(ConfigFile))]
    return "\n".join(lines)


def rows(info: mi.Type, prefix: str = "") -> Iterator[tuple[str, str, str]]:
    """(dotted key, default as YAML, description) of every leaf key under a section."""
    assert isinstance(info, mi.DataclassType)
    for f in info.fields:
        kind = f.type
        if isinstance(kind, mi.DataclassType):  # a section: its keys, dotted
            yield from rows(kind, f"{prefix}{f.encode_name}.")
            continue
        default = f.default if f.default is not NODEFAULT else f.default_factory()
        what = (kind.extra_json_schema or {}).get("description", "") if isinstance(kind, mi.Metadata) else ""
        if not what:
            raise ValueError(f"{prefix}{f.encode_name} has no Meta(description=...): say what it does")
        yield f"{prefix}{f.encode_name}", as_yaml(default), what


def as_yaml(value: Any) -> str:
    """A default as canary.yaml would spell it: `10`, `[1, 3, 7]`, `true`, `null`, `{}`."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(as_yaml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {as_yaml(v)}" for k, v in value.items()) + "}"
    return str(value)


def with_table(page: str) -> str:
    """`page` with its generated block replaced by the current table (ValueError: no block)."""
    head, begin, rest = page.partition(BEGIN)
    _, end, tail = rest.partition(END)
    if not begin or not end:
        raise ValueError(f"no {BEGIN} ... {END} block")
    return f"{head}{BEGIN}\n{config_keys_table()}\n{END}{tail}"


def pages() -> list[Path]:
    """The pages of docs/ that hold the generated block."""
    return sorted(p for p in DOCS.glob("*.md") if BEGIN in p.read_text(encoding="utf-8"))


def main() -> int:
    for page in pages():
        text = page.read_text(encoding="utf-8")
        page.write_text(with_table(text), encoding="utf-8")
        print(f"{page}: configuration table regenerated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
