"""The project's docs against its code, and the repository standing alone.

The table of `canary.yaml` settings is generated from the file's declaration (core/config_docs.py):
the page must hold exactly the generated table. docs/system.md §10.2 lists the constants the
system's rules use and docs/openrouter-wire.md §10 the client's limits: each row is compared with
the value the code really has, so a changed constant fails here until the page says the same.
The tables are Markdown: `| constant | value | ...|` (a dotted Python name, imported). Values
are read as YAML (`10`, `[1, 3, 7]`, `true`, `low`).

And a clone must make sense on its own: no file outside tests/ may point at material that lives
beside the repository (the team's shared folder). Tests may: the recorded OpenRouter traffic is
another project's file, read from outside at run time and skipped when absent.
"""

from __future__ import annotations

import importlib
import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import msgspec
import pytest
import yaml
from msgspec import Meta

from core import config_docs
from core.config import parse_config

ROOT = Path(__file__).resolve().parents[1]
SYSTEM = ROOT / "docs" / "system.md"
WIRE = ROOT / "docs" / "openrouter-wire.md"

# Pointers at the team's shared folder beside the repository, and its documents by name.
# The pages whose relative links are checked: the project's documentation.
PAGES = ("README.md", "ARCHITECTURE.md", "benchmarks/README.md", "simulator/README.md", "reports/README.md")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
OUTSIDE = re.compile(r"\.\./shared|shared/reference|shared/SPEC|\bSPEC\.md\b|openrouter-api\.md|tooling-notes"
                     r"|judging-notes")


def table(text: str, header: tuple[str, str]) -> dict[str, str]:
    """{first cell: second cell} of every Markdown table whose first two header cells are `header`."""
    rows: dict[str, str] = {}
    inside = False
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.lstrip().startswith("|") else []
        if len(cells) < 2:
            inside = False
        elif tuple(cells[:2]) == header:
            inside = True
        elif inside and not set(cells[0]) <= set("-: "):
            key = cells[0].strip("`")
            assert key not in rows, f"{key} is listed twice"
            rows[key] = cells[1]
    return rows


def stated(cell: str) -> Any:
    """The value a table cell states: its text without backticks, read as YAML."""
    return yaml.safe_load(cell.strip().strip("`"))


def comparable(value: Any) -> Any:
    """Tuples read as lists, so `(1, 3, 7)` in code equals `[1, 3, 7]` on the page."""
    if isinstance(value, (tuple, list)):
        return [comparable(v) for v in value]
    return value


def constant(dotted: str) -> Any:
    """The value of `package.module.NAME`, imported."""
    module, _, name = dotted.rpartition(".")
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise AssertionError(f"the docs name {dotted}, which does not exist ({exc}): "
                             "update the table to where the value lives now") from None


def differences(rows: Mapping[str, str], actual: Mapping[str, Any]) -> list[str]:
    """One line per row whose stated value is not the code's."""
    return [f"{key}: the docs say {rows[key]}, the code has {actual[key]!r}"
            for key in rows if key in actual and stated(rows[key]) != comparable(actual[key])]


def constant_rows(page: Path) -> dict[str, str]:
    return table(page.read_text(encoding="utf-8"), ("constant", "value"))


def tracked_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.fail(f"cannot list the tracked files with git ({exc}): run the suite from a clone")
    return [ROOT / name for name in out.decode().split("\0") if name]


def pointers_outside(paths: list[Path]) -> list[str]:
    """`file:line: text` of every line that points at material beside the repository."""
    found = []
    for path in paths:
        if not path.is_file():
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if OUTSIDE.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:120]}")
    return found


def anchors(markdown: str) -> set[str]:
    """The anchors GitHub gives the headings of a page (lowercase, punctuation dropped, spaces to -)."""
    seen: dict[str, int] = {}
    for line in without_code(markdown):
        if line.startswith("#"):
            slug = re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
            count = seen.get(slug, 0)
            seen[slug] = count + 1
            if count:
                seen[f"{slug}-{count}"] = 1
    return set(seen)


def without_code(markdown: str) -> list[str]:
    """The lines of a page outside fenced code blocks."""
    lines, fenced = [], False
    for line in markdown.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def broken_links(page: Path, root: Path = ROOT) -> list[str]:
    """Relative links of `page` whose file or heading does not exist, named relative to `root`."""
    broken = []
    for line in without_code(page.read_text(encoding="utf-8")):
        for target in LINK.findall(line):
            if re.match(r"[a-z]+:", target):
                continue  # https:, mailto: ...
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            if not dest.exists():
                broken.append(f"{page.relative_to(root)}: {target} (no such file)")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest.read_text(encoding="utf-8")):
                broken.append(f"{page.relative_to(root)}: {target} (no such heading)")
    return broken


def outside_tests(suffix_py: bool) -> list[Path]:
    return [p for p in tracked_files()
            if p.relative_to(ROOT).parts[0] != "tests" and (p.suffix == ".py") == suffix_py]


def test_the_configuration_table_is_the_one_generated_from_canary_yamls_declaration() -> None:
    pages = config_docs.pages()
    assert len(pages) == 1, f"one page of docs/ holds the generated configuration table, not {pages}"
    text = pages[0].read_text(encoding="utf-8")
    assert config_docs.with_table(text) == text, (
        f"{pages[0].name}: the configuration table is not the one generated from core/config.py: "
        "run `.venv/bin/python -m core.config_docs`")


def test_a_file_setting_every_key_to_the_tables_default_is_the_default_configuration() -> None:
    raw: dict[str, Any] = {}
    for key, cell in table(config_docs.config_keys_table(), ("key", "default")).items():
        *sections, name = key.split(".")
        node = raw
        for section in sections:
            node = node.setdefault(section, {})
        node[name] = stated(cell)
    assert parse_config(raw) == parse_config({})


def test_a_key_declared_without_a_description_cannot_reach_the_table() -> None:
    @dataclass(frozen=True)
    class Section:
        documented: Annotated[int, Meta(description="says what it does")] = 1
        silent: int = 2

    with pytest.raises(ValueError, match="silent has no Meta"):
        list(config_docs.rows(msgspec.inspect.type_info(Section)))


@pytest.mark.parametrize("page", [SYSTEM, WIRE], ids=lambda p: p.name)
def test_every_constant_a_doc_names_has_the_value_it_states(page: Path) -> None:
    rows = constant_rows(page)
    assert rows, f"{page.name} has no `| constant | value |` table"
    assert differences(rows, {key: constant(key) for key in rows}) == []


def test_a_value_that_differs_from_the_code_is_reported() -> None:
    rows = table("| constant | value | what |\n|---|---|---|\n| `a.FADE` | `15` | x |\n"
                 "| `a.LADDER` | `[1, 3, 7]` | y |\n", ("constant", "value"))
    assert differences(rows, {"a.FADE": 14, "a.LADDER": (1, 3, 7)}) == ["a.FADE: the docs say `15`, the code has 14"]


def test_no_document_or_configuration_outside_tests_points_beside_the_repository() -> None:
    assert pointers_outside(outside_tests(suffix_py=False)) == []


def test_every_relative_link_of_the_documentation_reaches_a_file_and_heading() -> None:
    pages = sorted((ROOT / "docs").glob("*.md")) + [ROOT / page for page in PAGES]
    assert SYSTEM in pages and WIRE in pages
    assert [link for page in pages for link in broken_links(page)] == []


def test_a_link_to_a_missing_heading_is_reported(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Top\n## 1. The pinned request\n[ok](#1-the-pinned-request) [bad](#2-gone)\n"
                    "```\n[in code](#ignored)\n```\n", encoding="utf-8")
    assert broken_links(page, tmp_path) == ["page.md: #2-gone (no such heading)"]


def test_no_source_file_outside_tests_points_beside_the_repository() -> None:
    assert pointers_outside(outside_tests(suffix_py=True)) == []
