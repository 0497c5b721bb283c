"""The project's docs against its code, and the repository standing alone.

docs/configuration.md's table of `canary.yaml` settings (its `<!-- generated: config-keys -->`
block) is generated from the file's declaration (core/config_docs.py): the page must hold exactly
the generated table. The pages of docs/ name the constants their rules use
(contracts.md the probes' and the language judge's, file-formats.md the state's, openrouter-wire.md
the client's limits, ...). Each table row is compared with the value the code really has, so a
changed default fails here until the page says the same. The tables are Markdown: `| key |
default | ... |` (settings) and `| constant | value | ... |` (a dotted Python name, imported).
Values are read as YAML (`10`, `[1, 3, 7]`, `true`, `low`). docs/contracts.md's reason codes are
the ones the verdicts carry (the `...Code` StrEnums of judge/ and probes/round/).

The README is a front page (under 200 lines) and every relative link of the documentation
reaches its file and heading, so each rule can have one home that the other pages link to.

And a clone must make sense on its own: no file outside tests/ may point at material that lives
beside the repository (the team's shared folder). Tests may (the corpora of real text for the judging
figures are read from beside the repository, and skip when absent).
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import msgspec
import pytest
import yaml
from msgspec import Meta

from core import config_docs
from core.config import parse_config

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
CONFIGURATION = DOCS / "configuration.md"
CONTRACTS = DOCS / "contracts.md"
WIRE = DOCS / "openrouter-wire.md"
README = ROOT / "README.md"
README_MAX_LINES = 200
# A sentence this long said on two pages is a rule told twice (one copy goes stale: link instead).
TOLD_ONCE_WORDS = 12

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


def generated_block(text: str, name: str) -> str:
    """The text between `<!-- generated: NAME -->` and the next `<!-- end -->` (a regenerable block)."""
    start = f"<!-- generated: {name} -->"
    assert text.count(start) == 1, f"expected one {start} block"
    body = text.split(start, 1)[1]
    assert "<!-- end -->" in body, f"{start} has no <!-- end -->"
    return body.split("<!-- end -->", 1)[0]


def pages_with_constants() -> list[Path]:
    return [page for page in sorted(DOCS.glob("*.md")) if constant_rows(page)]


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


def sentences(markdown: str) -> set[str]:
    """The prose sentences of a page (outside code and tables) of TOLD_ONCE_WORDS words or more, normalised."""
    paragraphs = "\n".join("" if line.lstrip().startswith(("|", "#")) else line for line in without_code(markdown))
    found = set()
    for sentence in re.split(r"(?<=[.;:!?])\s+|\n\s*\n", paragraphs):
        words = re.findall(r"\w+", sentence.lower())
        if len(words) >= TOLD_ONCE_WORDS:
            found.add(" ".join(words))
    return found


def told_twice(pages: list[Path], root: Path = ROOT) -> list[str]:
    """`page, page: sentence` for every long sentence that more than one page says."""
    where: dict[str, list[str]] = {}
    for page in pages:
        for sentence in sentences(page.read_text(encoding="utf-8")):
            where.setdefault(sentence, []).append(str(page.relative_to(root)))
    return [f"{', '.join(names)}: {sentence[:100]}" for sentence, names in sorted(where.items()) if len(names) > 1]


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


@pytest.mark.parametrize("page", pages_with_constants(), ids=lambda p: p.name)
def test_every_constant_a_doc_names_has_the_value_it_states(page: Path) -> None:
    rows = constant_rows(page)
    assert differences(rows, {key: constant(key) for key in rows}) == []


def test_the_pages_that_own_the_numbers_name_their_constants() -> None:
    assert {page.name for page in pages_with_constants()} >= {
        "contracts.md", "file-formats.md", "history.md", "notifications.md", "openrouter-wire.md", "workflow.md"}


def test_each_constant_is_named_on_one_page_only() -> None:
    seen: dict[str, str] = {}
    twice = []
    for page in pages_with_constants():
        for key in constant_rows(page):
            if key in seen:
                twice.append(f"{key}: {seen[key]} and {page.name}")
            seen[key] = page.name
    assert twice == []


def code_families() -> list[type[StrEnum]]:
    """Every family of verdict codes: the StrEnums named `...Code` declared in judge/ and probes/round/."""
    import judge
    import probes.round

    families = []
    for package in (judge, probes.round):
        for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            module = importlib.import_module(info.name)
            families += [v for k, v in vars(module).items() if k.endswith("Code") and isinstance(v, type)
                         and issubclass(v, StrEnum) and v.__module__ == info.name]
    return families


def test_the_documented_reason_codes_are_the_ones_canary_writes() -> None:
    from probes.http.records import ErrorKind
    from probes.round.cases import transport_code

    rows = table(CONTRACTS.read_text(encoding="utf-8"), ("code", "contract"))
    documented = {code for first_cell in rows for code in re.findall(r"[a-z0-9_]+", first_cell)}
    # transport_other is told in the prose under the table, with <outcome>_other; so are the
    # transport codes (the client's error_kind) the table leaves out.
    written = {m.value for family in code_families() for m in family} - {"transport_other"}
    kinds = {transport_code(kind) for kind in ErrorKind}
    assert len(code_families()) >= 20 and "ttft_exceeded" in written
    assert written - documented == set(), f"codes missing from docs/contracts.md: {sorted(written - documented)}"
    assert documented - written - kinds == set(), \
        f"docs/contracts.md lists codes canary never writes: {sorted(documented - written - kinds)}"


def test_a_value_that_differs_from_the_code_is_reported() -> None:
    rows = table("| constant | value | what |\n|---|---|---|\n| `a.FADE` | `15` | x |\n"
                 "| `a.LADDER` | `[1, 3, 7]` | y |\n", ("constant", "value"))
    assert differences(rows, {"a.FADE": 14, "a.LADDER": (1, 3, 7)}) == ["a.FADE: the docs say `15`, the code has 14"]


def test_no_document_or_configuration_outside_tests_points_beside_the_repository() -> None:
    assert pointers_outside(outside_tests(suffix_py=False)) == []


def test_every_relative_link_of_the_documentation_reaches_a_file_and_heading() -> None:
    pages = sorted(DOCS.glob("*.md")) + [ROOT / page for page in PAGES]
    assert CONFIGURATION in pages and WIRE in pages and README in pages
    assert [link for page in pages for link in broken_links(page)] == []


def test_a_link_to_a_missing_file_is_reported(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("[gone](docs/gone.md) [web](https://example.org/x.md)\n", encoding="utf-8")
    assert broken_links(page, tmp_path) == ["page.md: docs/gone.md (no such file)"]


@pytest.mark.parametrize(("page", "block"), [("configuration.md", "config-keys"), ("file-formats.md", "results-json"),
                                             ("file-formats.md", "decisions-json"), ("file-formats.md", "status-json"),
                                             ("file-formats.md", "production-json")])
def test_the_tables_generated_from_the_code_have_their_block(page: str, block: str) -> None:
    assert generated_block((DOCS / page).read_text(encoding="utf-8"), block).strip()


def test_the_readme_is_a_front_page() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) < README_MAX_LINES, (f"README.md has {len(lines)} lines: keep it a front page under "
                                           f"{README_MAX_LINES} and move the detail to its page under docs/")


def test_each_rule_is_told_on_one_page_and_linked_from_the_others() -> None:
    assert told_twice(sorted(DOCS.glob("*.md")) + [README, ROOT / "ARCHITECTURE.md"]) == []


def test_a_sentence_copied_to_a_second_page_is_reported(tmp_path: Path) -> None:
    rule = "A host is suspended after two failed rounds in a row, and restored after two clean ones."
    (tmp_path / "a.md").write_text(f"# A\n{rule}\n", encoding="utf-8")
    wrapped = rule.replace("in a row, ", "in a row,\n")  # the same sentence, wrapped differently
    (tmp_path / "b.md").write_text(f"# B\nShort.\n\n{wrapped}\n", encoding="utf-8")
    (tmp_path / "c.md").write_text("| in a table: " + rule + " |\n```\n" + rule + "\n```\n", encoding="utf-8")
    assert told_twice(sorted(tmp_path.glob("*.md")), tmp_path) == [
        "a.md, b.md: a host is suspended after two failed rounds in a row and restored after two clean ones"]


def test_the_readme_links_every_page_of_docs() -> None:
    readme = README.read_text(encoding="utf-8")
    missing = [page.name for page in sorted(DOCS.glob("*.md")) if f"(docs/{page.name})" not in readme]
    assert missing == [], f"README.md's 'Where to go next' does not link {missing}"


def test_a_link_to_a_missing_heading_is_reported(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Top\n## 1. The pinned request\n[ok](#1-the-pinned-request) [bad](#2-gone)\n"
                    "```\n[in code](#ignored)\n```\n", encoding="utf-8")
    assert broken_links(page, tmp_path) == ["page.md: #2-gone (no such heading)"]


def test_no_source_file_outside_tests_points_beside_the_repository() -> None:
    assert pointers_outside(outside_tests(suffix_py=True)) == []
