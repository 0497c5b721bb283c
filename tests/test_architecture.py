"""The layers of ARCHITECTURE.md, checked on every import of every module (not on trust).

Every `import` and `from ... import` of every module is read with `ast` (those inside functions
and `if TYPE_CHECKING:` blocks too: a lazy import is still a dependency) and checked against the
layer table of ARCHITECTURE.md. A failure names the file, the line and the rule it breaks.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STDLIB = frozenset(sys.stdlib_module_names)
OUR_PACKAGES = frozenset({"core", "judge", "simulator", "probes", "canary", "provider_ignore"})
# The parts of core/ that touch files or the environment: the pure layers may not use them.
IMPURE_CORE = frozenset({"core.config", "core.store", "core.upstream"})
# The standard library's doors to I/O, the clock and the environment: closed to the judge.
IO_STDLIB = frozenset({"os", "sys", "subprocess", "socket", "time", "shutil", "tempfile", "asyncio", "urllib",
                       "http", "sqlite3", "signal", "multiprocessing"})


@dataclass(frozen=True, slots=True)
class Import:
    file: str      # relative to the repository
    line: int
    module: str    # dotted, absolute


@dataclass(frozen=True, slots=True)
class Layer:
    """What one folder may import: the standard library (but `no_stdlib`), `packages`, and `files`."""

    folder: str
    packages: frozenset[str]                 # top-level names allowed (our packages and third-party)
    no_stdlib: frozenset[str] = frozenset()  # standard modules it must not use
    no_modules: frozenset[str] = frozenset()  # dotted modules it must not use (nor their submodules)
    only_in: tuple[tuple[str, str], ...] = ()  # (top-level name, the one file allowed to import it)

    def offence(self, imp: Import) -> str | None:
        top = imp.module.split(".")[0]
        where = f"{imp.file}:{imp.line} imports {imp.module}"
        if top in STDLIB:
            return f"{where}: {self.folder}/ must not use {top} (I/O, clock or environment)" \
                if top in self.no_stdlib else None
        if top not in self.packages:
            return f"{where}: {self.folder}/ may import only the standard library and {sorted(self.packages)}"
        if any(imp.module == m or imp.module.startswith(m + ".") for m in self.no_modules):
            if self.no_modules == IMPURE_CORE:
                return f"{where}: {self.folder}/ may use only the pure part of core/ (not {sorted(self.no_modules)})"
            return f"{where}: {self.folder}/ must not import any of {sorted(self.no_modules)}"
        for name, file in self.only_in:
            if top == name and imp.file != file:
                return f"{where}: only {file} may import {name}"
        return None


LAYERS = (
    Layer("core", frozenset({"core", "yaml", "msgspec"}), only_in=(("yaml", "core/config.py"),)),
    Layer("judge", frozenset({"core", "judge", "jsonschema", "lingua", "ftfy", "wordfreq", "msgpack", "scipy", "msgspec"}),
          no_stdlib=IO_STDLIB, no_modules=IMPURE_CORE),
    Layer("simulator", frozenset({"core", "simulator", "aiohttp", "yaml", "msgspec"}), no_modules=IMPURE_CORE),
    Layer("probes", frozenset({"core", "judge", "probes", "simulator", "httpx", "httpcore", "pytest", "_pytest",
                               "xdist", "allure", "allure_commons", "yaml"}),
          only_in=(("simulator", "probes/pytest_plugin/bundled_simulator.py"),)),
    # The chat backend's library: the judge's merge and the state's readers, none of canary's shell.
    Layer("provider_ignore", frozenset({"core", "judge", "canary"}), no_modules=frozenset(
        {"canary.cli", "canary.round", "canary.outputs", "canary.integrations", "canary.history"})),
)


def imports_of(source: str, file: str) -> Iterator[Import]:
    """Every absolute import in `source` (relative ones resolved against `file`'s package)."""
    package = file.removesuffix(".py").split("/")[:-1]
    for node in ast.walk(ast.parse(source, filename=file)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(file, node.lineno, alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            yield Import(file, node.lineno, module)


def offences(layer: Layer, files: dict[str, str]) -> list[str]:
    """The rule each import of `files` ({relative path: source}) breaks, one line each."""
    found = []
    for file, source in sorted(files.items()):
        for imp in imports_of(source, file):
            problem = layer.offence(imp)
            if problem:
                found.append(problem)
    return found


def sources(folder: str) -> dict[str, str]:
    return {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in sorted((ROOT / folder).rglob("*.py"))}


@pytest.mark.parametrize("layer", LAYERS, ids=lambda layer: layer.folder)
def test_a_layer_imports_only_what_architecture_md_allows(layer: Layer) -> None:
    found = offences(layer, sources(layer.folder))
    assert not found, "\n".join(found)


def test_every_layer_of_architecture_md_is_checked() -> None:
    checked = {layer.folder for layer in LAYERS} | {"canary"}  # canary/ (the shell) may import everything
    assert checked == OUR_PACKAGES
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    assert all(f"`{folder}/`" in text for folder in OUR_PACKAGES)


@pytest.mark.parametrize(("layer", "file", "source", "expected"), [
    ("judge", "judge/bad.py", "from __future__ import annotations\nimport json\nfrom canary.state.audit import x\n",
     "judge/bad.py:3 imports canary.state.audit"),
    ("judge", "judge/bad.py", "def f():\n    import os\n", "judge/bad.py:2 imports os: judge/ must not use os"),
    ("judge", "judge/bad.py", "from core.store import atomic_write_text\n", "only the pure part of core/"),
    ("judge", "judge/sub/bad.py", "from ...canary import cli\n", "judge/sub/bad.py:1 imports canary"),
    ("core", "core/bad.py", "import yaml\n", "core/bad.py:1 imports yaml: only core/config.py may import yaml"),
    ("core", "core/bad.py", "from judge.replies.verdict import Verdict\n", "core/bad.py:1 imports judge.replies.verdict"),
    ("simulator", "simulator/bad.py", "from probes import client\n", "simulator/bad.py:1 imports probes"),
    ("probes", "probes/round/engine.py", "from core.config import Config\nfrom canary.config import X\n",
     "probes/round/engine.py:2 imports canary.config"),
    ("probes", "probes/pytest_plugin/hooks.py", "import simulator.process\n",
     "only probes/pytest_plugin/bundled_simulator.py may import simulator"),
])
def test_the_check_names_the_file_and_line_of_a_forbidden_import(layer: str, file: str, source: str,
                                                                  expected: str) -> None:
    rules = next(candidate for candidate in LAYERS if candidate.folder == layer)
    found = offences(rules, {file: source})
    assert len(found) == 1 and expected in found[0], found


def test_allowed_imports_are_not_reported() -> None:
    judge = next(layer for layer in LAYERS if layer.folder == "judge")
    source = "import json\nfrom core.vocabulary import Outcome\nfrom . import window\nimport lingua\n"
    assert offences(judge, {"judge/ok.py": source}) == []


# Inside probes/: the HTTP client knows no round, and neither knows pytest (the adapter is pytest_plugin/).
PROBES_INNER = (
    Layer("probes/http", frozenset({"core", "probes", "httpx", "httpcore"}), no_modules=frozenset(
        {"probes.round", "probes.pytest_plugin", "probes.conftest", "probes.test_round"})),
    Layer("probes/round", frozenset({"core", "judge", "probes", "httpx", "yaml"}), no_modules=frozenset(
        {"probes.pytest_plugin", "probes.conftest", "probes.test_round"})),
)


@pytest.mark.parametrize("layer", PROBES_INNER, ids=lambda layer: layer.folder)
def test_the_http_client_and_the_round_do_not_import_pytest_or_the_adapter(layer: Layer) -> None:
    found = offences(layer, sources(layer.folder))
    assert not found, "\n".join(found)


def test_the_round_check_can_fail() -> None:
    found = offences(PROBES_INNER[1], {"probes/round/bad.py": "import pytest\nfrom probes.pytest_plugin import hooks\n"})
    assert len(found) == 2 and "probes/round/bad.py:1 imports pytest" in found[0], found
    assert "probes/round/bad.py:2 imports probes.pytest_plugin: probes/round/ must not import" in found[1], found


def test_judge_is_importable_without_pytest() -> None:
    import subprocess

    code = ("import sys; sys.modules['pytest'] = None; sys.modules['_pytest'] = None\n"
            "import judge.replies.language, judge.replies.refusal, judge.replies.structured, judge.suspension.rules\n"
            "print(judge.replies.refusal.assess('', 'stop').outcome)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "fail"


def test_every_file_the_where_does_x_live_table_names_exists() -> None:
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    table = text[text.index("## Where does X live"):text.index("## Errors")]
    missing = []
    for row in table.splitlines()[4:]:
        where = row.split("|")[2] if row.count("|") >= 3 else ""
        where = where.split("planned")[0]  # what is still planned need not exist yet
        for path in re.findall(r"`([\w/]+(?:\.py|/))`", where):
            if not (ROOT / path).exists():
                missing.append(f"{path} ({row.split('|')[1].strip()})")
    assert not missing, "ARCHITECTURE.md names files that do not exist:\n" + "\n".join(missing)


def command_offences(files: dict[str, str]) -> list[str]:
    """Each import of one command module by another (canary/cli/commands/_*.py are shared option helpers)."""
    found = []
    for file, source in sorted(files.items()):
        for imp in imports_of(source, file):
            target = imp.module.removeprefix("canary.cli.commands.")
            if imp.module.startswith("canary.cli.commands.") and not target.startswith("_"):
                found.append(f"{imp.file}:{imp.line} imports {imp.module}: a command calls the typed functions "
                             "of canary/round/ (probing.py, judging.py, local_round.py), never another command")
    return found


def test_no_command_module_imports_another_command() -> None:
    found = command_offences(sources("canary/cli/commands"))
    assert not found, "\n".join(found)


def test_the_command_check_names_the_file_and_line_of_a_command_importing_another() -> None:
    source = "from canary.cli.commands._options import add_common\nfrom canary.cli.commands.judge import run\n"
    found = command_offences({"canary/cli/commands/commit.py": source})
    assert len(found) == 1 and "canary/cli/commands/commit.py:2 imports canary.cli.commands.judge" in found[0], found


# Inside judge/: a reply is judged without the rules that act on it (the two packages of judge/).
JUDGE_REPLIES = Layer("judge/replies", frozenset({"core", "judge", "jsonschema", "lingua", "ftfy", "wordfreq", "msgpack"}),
                      no_modules=frozenset({"judge.suspension"}))


def test_the_reply_checks_never_import_the_suspension_rules() -> None:
    found = offences(JUDGE_REPLIES, sources("judge/replies"))
    assert not found, "\n".join(found)


def test_the_reply_check_rule_can_fail() -> None:
    found = offences(JUDGE_REPLIES, {"judge/replies/bad.py": "from judge.suspension.card import Card\n"})
    assert len(found) == 1 and "judge/replies/bad.py:1 imports judge.suspension.card" in found[0], found


# Folders that show the seams: judge/ and canary/ hold packages (one per subsystem), not loose modules.
SUBSYSTEM_FOLDERS = ("judge", "canary")


def loose_modules(folder: Path) -> list[str]:
    """Modules directly in `folder` other than its package files: each belongs in a subsystem package."""
    return sorted(p.name for p in folder.glob("*.py") if p.name not in ("__init__.py", "__main__.py"))


@pytest.mark.parametrize("folder", SUBSYSTEM_FOLDERS)
def test_judge_and_canary_hold_subsystem_packages_not_loose_modules(folder: str) -> None:
    loose = loose_modules(ROOT / folder)
    assert not loose, f"{folder}/ holds loose modules {loose}: move each into the package of its subsystem " \
                      "(ARCHITECTURE.md's folder map)"


def test_the_loose_module_rule_can_fail(tmp_path: Path) -> None:
    (tmp_path / "__init__.py").write_text("")
    (tmp_path / "probing.py").write_text("")
    assert loose_modules(tmp_path) == ["probing.py"]


def test_architecture_md_maps_every_subsystem_package() -> None:
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    packages = [f"{folder}/{p.parent.name}/" for folder in SUBSYSTEM_FOLDERS
                for p in sorted((ROOT / folder).glob("*/__init__.py"))]
    missing = [package for package in packages if package not in text]
    assert not missing, f"ARCHITECTURE.md's folder map does not name {missing}"
