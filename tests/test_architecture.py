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
    only_in: tuple[tuple[str, str], ...] = ()  # (top-level name, the files allowed to import it, space-separated)

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
        for name, files in self.only_in:
            if top == name and imp.file not in files.split():
                return f"{where}: only {' and '.join(files.split())} may import {name}"
        return None


LAYERS = (
    Layer("core", frozenset({"core", "yaml", "msgspec"}), only_in=(("yaml", "core/config.py core/layer_files.py"),)),
    Layer("judge",
          frozenset({"core", "judge", "jsonschema", "lingua", "ftfy", "wordfreq", "msgpack", "yaml", "scipy",
                     "msgspec"}),
          no_stdlib=IO_STDLIB, no_modules=IMPURE_CORE,
          only_in=(("msgspec", "judge/suspension/state.py judge/suspension/decisions.py judge/suspension/card.py"),
                   ("yaml", "judge/replies/refusal_lexicon.py"))),
    Layer("simulator", frozenset({"core", "simulator", "aiohttp", "yaml", "msgspec", "click"}), no_modules=IMPURE_CORE,
          only_in=(("click", "simulator/cli.py"),)),
    Layer("probes", frozenset({"core", "judge", "probes", "simulator", "httpx", "httpcore", "pytest", "_pytest",
                               "allure", "allure_commons", "yaml", "msgspec"}),
          only_in=(("simulator", "probes/pytest_plugin/bundled_simulator.py"),
                   ("msgspec", "probes/round/planning.py"))),
    # The chat backend's library, installed on its own: the layers and their readers in core/, and for the
    # production sampler the production record and the pure reply checks, nothing above. (Which modules
    # it may reach is the closure rule below: what its distribution ships.)
    Layer("provider_ignore", frozenset({"core", "provider_ignore", "judge", "msgspec", "setuptools"}),
          no_modules=frozenset({"judge.suspension"}),
          only_in=(("judge", "provider_ignore/production.py"), ("msgspec", "provider_ignore/production.py"),
                   ("setuptools", "provider_ignore/setup.py"))),
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
    ("judge", "judge/replies/bad.py", "import msgspec\n",
     "judge/replies/bad.py:1 imports msgspec: only judge/suspension/state.py and judge/suspension/decisions.py"),
    ("core", "core/bad.py", "import yaml\n",
     "core/bad.py:1 imports yaml: only core/config.py and core/layer_files.py may import yaml"),
    ("provider_ignore", "provider_ignore/bad.py", "from judge.suspension.exclusions import effective_ignore\n",
     "provider_ignore/bad.py:1 imports judge.suspension.exclusions"),
    ("core", "core/bad.py", "from judge.replies.verdict import Verdict\n",
     "core/bad.py:1 imports judge.replies.verdict"),
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
    Layer("probes/round", frozenset({"core", "judge", "probes", "httpx", "yaml", "msgspec"}), no_modules=frozenset(
        {"probes.pytest_plugin", "probes.conftest", "probes.test_round"})),
)


@pytest.mark.parametrize("layer", PROBES_INNER, ids=lambda layer: layer.folder)
def test_the_http_client_and_the_round_do_not_import_pytest_or_the_adapter(layer: Layer) -> None:
    found = offences(layer, sources(layer.folder))
    assert not found, "\n".join(found)


def test_the_round_check_can_fail() -> None:
    bad = {"probes/round/bad.py": "import pytest\nfrom probes.pytest_plugin import hooks\n"}
    found = offences(PROBES_INNER[1], bad)
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


# The shell is click's: commands are listed in canary/cli/main.py (no discovery), options are typed
# click parameters (no argparse Namespace read with getattr); the simulator's command too.
SHELL_REFUSED = frozenset({"argparse", "pkgutil"})


def shell_offences(files: dict[str, str]) -> list[str]:
    """Each import of argparse or pkgutil under canary/cli/ (and simulator/cli.py), and each command module
    main.py does not list."""
    found = [f"{imp.file}:{imp.line} imports {imp.module}: canary's shell is click (commands listed in "
             "canary/cli/main.py COMMANDS, options as click parameters)"
             for file, source in sorted(files.items()) for imp in imports_of(source, file)
             if imp.module.split(".")[0] in SHELL_REFUSED]
    main = ast.parse(files.get("canary/cli/main.py", ""))
    listed = {f"{node.module}.{alias.name}" for node in ast.walk(main)
              if isinstance(node, ast.ImportFrom) and node.module for alias in node.names}
    for file in sorted(files):
        name = file.removeprefix("canary/cli/commands/").removesuffix(".py")
        if file.startswith("canary/cli/commands/") and not name.startswith("_") and "/" not in name \
                and f"canary.cli.commands.{name}" not in listed:
            found.append(f"{file} is a command module canary/cli/main.py does not import: list its command "
                         "in COMMANDS")
    return found


def test_the_shell_is_click_with_its_commands_listed() -> None:
    found = shell_offences(sources("canary/cli") | {"simulator/cli.py": (ROOT / "simulator/cli.py").read_text()})
    assert not found, "\n".join(found)


def test_the_shell_rule_can_fail() -> None:
    files = {"canary/cli/main.py": "import pkgutil\nfrom canary.cli.commands import judge\n",
             "canary/cli/commands/judge.py": "import click\n",
             "canary/cli/commands/lift.py": "import argparse\n",
             "canary/cli/commands/_options.py": "import click\n"}
    assert shell_offences(files) == [
        "canary/cli/commands/lift.py:1 imports argparse: canary's shell is click (commands listed in "
        "canary/cli/main.py COMMANDS, options as click parameters)",
        "canary/cli/main.py:1 imports pkgutil: canary's shell is click (commands listed in canary/cli/main.py "
        "COMMANDS, options as click parameters)",
        "canary/cli/commands/lift.py is a command module canary/cli/main.py does not import: list its command "
        "in COMMANDS"]


# Inside judge/: a reply is judged without the rules that act on it (the two packages of judge/).
JUDGE_REPLIES = Layer("judge/replies",
                      frozenset({"core", "judge", "jsonschema", "lingua", "ftfy", "wordfreq", "msgpack", "yaml"}),
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


# tests/ mirrors the product's folders, so a module's tests are found from its path alone. These
# test folders test the whole rather than one package: a hostile upstream, the real OpenRouter,
# the proofs (fault matrix, timelines, fleets) and the GitHub workflows.
WHOLE_SYSTEM_TEST_FOLDERS = ("hostile", "live", "proof", "workflows")
PRODUCT_ROOTS = ("canary", "core", "judge", "probes", "provider_ignore", "simulator")


def mirror_offences(root: Path) -> list[str]:
    """Test folders that name no product folder, and product packages one level under a root
    (canary/cli, judge/replies, probes/http, ...) without a test folder of their own."""
    tests = root / "tests"
    found = []
    for folder in sorted({p.parent for p in tests.rglob("test_*.py")} - {tests}):
        relative = folder.relative_to(tests)
        if relative.parts[0] not in WHOLE_SYSTEM_TEST_FOLDERS and not (root / relative).is_dir():
            found.append(f"tests/{relative.as_posix()} names no product folder: move its tests beside "
                         "the folder they test")
    for package in sorted(p.parent for top in PRODUCT_ROOTS for p in (root / top).glob("*/__init__.py")):
        relative = package.relative_to(root).as_posix()
        if not any((tests / relative).glob("test_*.py")):
            found.append(f"{relative}/ has no tests/{relative}/ (tests mirror the product's folders)")
    return found


def test_the_tests_mirror_the_product_folders() -> None:
    found = mirror_offences(ROOT)
    assert not found, "\n".join(found)


def test_the_mirror_rule_can_fail(tmp_path: Path) -> None:
    for path in ("canary/cli/__init__.py", "canary/round/__init__.py", "tests/canary/cli/test_a.py",
                 "tests/canary/commands/test_b.py", "tests/proof/test_c.py"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("")
    assert mirror_offences(tmp_path) == [
        "tests/canary/commands names no product folder: move its tests beside the folder they test",
        "canary/round/ has no tests/canary/round/ (tests mirror the product's folders)"]


def test_architecture_md_maps_every_subsystem_package() -> None:
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    packages = [f"{folder}/{p.parent.name}/" for folder in SUBSYSTEM_FOLDERS
                for p in sorted((ROOT / folder).glob("*/__init__.py"))]
    missing = [package for package in packages if package not in text]
    assert not missing, f"ARCHITECTURE.md's folder map does not name {missing}"


# "One X" (ARCHITECTURE.md): one way to do each of these things, checked like the layers.
PRODUCT_FOLDERS = ("core", "judge", "simulator", "probes", "canary", "provider_ignore")
TIMESTAMP_FORMAT = "%Y-%m-%dT%H:%M:%S"


def nodes_in_order(source: str, file: str) -> list[ast.AST]:
    """Every node of `source` that has a line, in the order of the lines (so offences read top-down)."""
    found = [node for node in ast.walk(ast.parse(source, filename=file)) if hasattr(node, "lineno")]
    return sorted(found, key=lambda node: (getattr(node, "lineno", 0), getattr(node, "col_offset", 0)))


def product_sources() -> dict[str, str]:
    return {file: source for folder in PRODUCT_FOLDERS for file, source in sources(folder).items()}


def time_offences(files: dict[str, str]) -> list[str]:
    """Each time read or written outside core/times.py: a `fromisoformat`, a copy of the timestamp format."""
    found = []
    for file, source in sorted(files.items()):
        if file == "core/times.py":
            continue
        for node in nodes_in_order(source, file):
            if isinstance(node, ast.Attribute) and node.attr == "fromisoformat":
                found.append(f"{file}:{node.lineno} calls fromisoformat: read times with core/times.py "
                             "(parse_time, time_or_none, parse_date: naive means UTC there)")
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and TIMESTAMP_FORMAT in node.value:
                found.append(f"{file}:{node.lineno} spells the timestamp format: write times with core/times.py "
                             "(stamp, fmt_time)")
    return found


def test_times_are_read_and_written_only_through_core_times() -> None:
    files = {**product_sources(), **sources("benchmarks"), **sources("tests")}
    found = time_offences({f: s for f, s in files.items() if f != "tests/test_architecture.py"})  # its examples
    assert not found, "\n".join(found)


def test_the_time_rule_can_fail() -> None:
    source = ("from datetime import datetime\nt = datetime.fromisoformat('2026-11-29')\n"
              "s = f'{t:%Y-%m-%dT%H:%M:%SZ}'\nu = t.strftime('%Y-%m-%dT%H:%M:%S.%fZ')\n")
    found = time_offences({"canary/history/bad.py": source, "core/times.py": source})
    assert len(found) == 3, found
    assert "canary/history/bad.py:2 calls fromisoformat" in found[0], found
    assert all("spells the timestamp format" in f for f in found[1:]) and "bad.py:3" in found[1], found


def declaration_offences(files: dict[str, str]) -> list[str]:
    """Each `object.__setattr__` in a module that declares a file (it imports core.schema or
    core.field_rules), and each regular expression in core/schema.py: a declaration is the type the
    file holds, never patched after construction, and a library's message is never parsed back into a path."""
    found = []
    for file, source in sorted(files.items()):
        tree = ast.parse(source, file)
        if file != "core/schema.py" and not any(isinstance(n, ast.ImportFrom)
                                                and n.module in ("core.schema", "core.field_rules")
                                                for n in ast.walk(tree)):
            continue
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "__setattr__" and isinstance(node.func.value, ast.Name)
                    and node.func.value.id == "object"):
                found.append(f"{file}:{node.lineno} patches a frozen declaration with object.__setattr__: declare "
                             "the type the file holds (core/schema.py), or normalise where the record is built")
            if (file == "core/schema.py" and isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id == "re" and node.attr in ("compile", "match", "fullmatch", "findall")):
                found.append(f"{file}:{node.lineno} parses text with re.{node.attr}: word a refusal from the "
                             "declaration's type tree, never from a library's message")
    return found


def test_file_declarations_are_never_patched_and_library_messages_never_parsed() -> None:
    found = declaration_offences(product_sources())
    assert not found, "\n".join(found)


def test_the_declaration_rule_can_fail() -> None:
    declared = ("from dataclasses import dataclass\nfrom core.schema import read_as\n\n\n"
                "@dataclass(frozen=True)\nclass F:\n    x: object = None\n\n"
                "    def __post_init__(self):\n        object.__setattr__(self, 'x', 1)\n")
    elsewhere = "class G:\n    def __init__(self):\n        object.__setattr__(self, 'x', 1)\n"
    schema = "import re\n_AT = re.compile(r' - at `(.*)`')\n"
    found = declaration_offences({"core/made_up.py": declared, "core/not_a_file.py": elsewhere,
                                  "core/schema.py": schema})
    assert len(found) == 2, found
    assert found[0].startswith("core/made_up.py:10 patches a frozen declaration"), found
    assert found[1].startswith("core/schema.py:2 parses text with re.compile"), found


def canary_errors() -> frozenset[str]:
    """The names of the error tree core/errors.py draws (tests/test_errors.py: the drawing is the tree)."""
    import core.errors

    return frozenset({"CanaryError", *re.findall(r"[├└]── (\w+)", core.errors.__doc__ or "")})


# A command whose output is the verdict on a file: there the error is the finding, not a refusal.
# validate: canary.yaml invalid is exit 1; a discovery snapshot it cannot read is a note (the controls unchecked).
VERDICTS = {"canary/cli/commands/validate.py": frozenset({"ConfigError", "SnapshotError", "StoreError"})}


def refusal_offences(files: dict[str, str], errors: frozenset[str]) -> list[str]:
    """Each handler in a command that catches one of canary's errors to return an exit code itself."""
    found = []
    for file, source in sorted(files.items()):
        for node in nodes_in_order(source, file):
            if not isinstance(node, ast.ExceptHandler) or node.type is None:
                continue
            named = node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]
            caught = [n.id if isinstance(n, ast.Name) else n.attr
                      for n in named if isinstance(n, ast.Name | ast.Attribute)]
            ours = sorted(set(caught) & errors - VERDICTS.get(file, frozenset()))
            exits = [r for r in ast.walk(node) if isinstance(r, ast.Return) and r.value is not None
                     and not (isinstance(r.value, ast.Constant) and r.value.value is None)]
            if ours and exits:
                found.append(f"{file}:{node.lineno} catches {', '.join(ours)} to return an exit code: let it "
                             "propagate; canary/cli/main.py says every CanaryError once (`refused=` sets the code)")
    return found


def test_commands_leave_their_refusals_to_the_cli_main() -> None:
    found = refusal_offences(sources("canary/cli/commands"), canary_errors())
    assert not found, "\n".join(found)


def test_the_refusal_rule_can_fail() -> None:
    source = ("def run(args):\n    try:\n        load()\n    except (StoreError, allure_html.AllureError) as exc:\n"
              "        print(exc)\n        return 2\n    try:\n        branch = current()\n"
              "    except CommitBackError:\n        return None\n    except OSError:\n        return 1\n")
    found = refusal_offences({"canary/cli/commands/bad.py": source}, canary_errors())
    assert len(found) == 1 and "bad.py:4 catches AllureError, StoreError to return an exit code" in found[0], found


def sleep_offences(files: dict[str, str]) -> list[str]:
    """Each call of a `sleep` inside a loop outside core/retry.py: a backoff of its own.

    An awaited sleep is the event loop's pacing (the simulator's streams, the round's polling, the
    probe client's one Retry-After wait), not a retry schedule: not counted.
    """
    found = []
    for file, source in sorted(files.items()):
        if file == "core/retry.py":
            continue
        tree = ast.parse(source, filename=file)
        awaited = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Await)}
        loops = [node for node in ast.walk(tree) if isinstance(node, ast.For | ast.While | ast.AsyncFor)]
        calls = {id(call): call for loop in loops for call in ast.walk(loop) if isinstance(call, ast.Call)}
        for call in sorted(calls.values(), key=lambda c: c.lineno):
            name = call.func.id if isinstance(call.func, ast.Name) else \
                call.func.attr if isinstance(call.func, ast.Attribute) else ""
            if name.lstrip("_") == "sleep" and id(call) not in awaited:
                found.append(f"{file}:{call.lineno} sleeps inside a loop: retry with core/retry.py's Backoff "
                             "(same pauses, one loop)")
    return found


def test_the_only_backoff_loop_is_core_retry() -> None:
    found = sleep_offences(product_sources())
    assert not found, "\n".join(found)


def test_the_backoff_rule_can_fail() -> None:
    source = ("import asyncio, time\ndef send(sleep):\n    for attempt in range(3):\n        if ok():\n"
              "            return\n        sleep(2.0 * attempt)\n    while True:\n        time.sleep(1)\n"
              "async def pace():\n    while True:\n        await asyncio.sleep(0.1)\n")
    found = sleep_offences({"canary/integrations/bad.py": source})
    assert [f.split(" ")[0] for f in found] == ["canary/integrations/bad.py:6", "canary/integrations/bad.py:8"], found


# One name per idea: a public class is defined once in the product (issue 21 item 4: no exception
# is left), and so are the functions that once named two things.
FUNCTIONS_NAMED_ONCE = frozenset({"record_round"})


def shared_names(files: dict[str, str]) -> list[str]:
    """Each public class (or function of FUNCTIONS_NAMED_ONCE) defined in more than one module."""
    where: dict[str, list[str]] = {}
    for file, source in sorted(files.items()):
        for node in ast.parse(source, filename=file).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_") or (
                    isinstance(node, ast.FunctionDef) and node.name in FUNCTIONS_NAMED_ONCE):
                where.setdefault(node.name, []).append(f"{file}:{node.lineno}")
    return [f"{name} names two things ({', '.join(files)}): give one of them its own name"
            for name, files in sorted(where.items()) if len(files) > 1]


def test_each_public_class_has_a_name_of_its_own() -> None:
    found = shared_names(product_sources())
    assert not found, "\n".join(found)


def test_the_one_name_rule_can_fail() -> None:
    found = shared_names({"canary/cli/commands/_options.py": "class Layers:\n    pass\n",
                          "canary/outputs/site/collect.py": "from x import y\nclass Layers:\n    pass\n",
                          "canary/history/store.py": "def record_round():\n    pass\n",
                          "judge/suspension/evidence.py": "def record_round():\n    pass\nclass Decision:\n    pass\n",
                          "core/results.py": "class Decision:\n    pass\n"})
    assert found == ["Decision names two things (core/results.py:1, judge/suspension/evidence.py:3): "
                     "give one of them its own name",
                     "Layers names two things (canary/cli/commands/_options.py:1, canary/outputs/site/collect.py:2): "
                     "give one of them its own name",
                     "record_round names two things (canary/history/store.py:1, judge/suspension/evidence.py:1): "
                     "give one of them its own name"], found


def str_enum_offences(files: dict[str, str]) -> list[str]:
    """Each `class X(str, Enum)`: a StrEnum says it in one word, and its str() is the value."""
    found = []
    for file, source in sorted(files.items()):
        for node in nodes_in_order(source, file):
            if isinstance(node, ast.ClassDef):
                bases = [b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else ""
                         for b in node.bases]
                if "str" in bases and "Enum" in bases:
                    found.append(f"{file}:{node.lineno} {node.name} is a (str, Enum): make it a StrEnum")
    return found


def test_string_enums_are_str_enums() -> None:
    found = str_enum_offences(product_sources())
    assert not found, "\n".join(found)


def test_the_str_enum_rule_can_fail() -> None:
    source = "import enum\nfrom enum import Enum, StrEnum\nclass A(str, Enum):\n    X = 'x'\n" \
             "class B(StrEnum):\n    Y = 'y'\nclass C(str, enum.Enum):\n    Z = 'z'\n"
    found = str_enum_offences({"core/bad.py": source})
    assert [f.split(" ")[0] for f in found] == ["core/bad.py:3", "core/bad.py:7"], found


# The chat backend's library is installed on its own (provider_ignore/pyproject.toml ships it with a few
# modules of core/ and judge/, vendored under provider_ignore._vendor): every module it reaches, lazy and
# TYPE_CHECKING imports included, must be shipped, and nothing lands outside provider_ignore.
def import_closure(start: str, files: dict[str, str]) -> set[str]:
    """Our modules reachable from the module `start` through `files` ({relative path: source})."""
    modules = {f.removesuffix(".py").removesuffix("/__init__").replace("/", "."): f for f in files}
    seen, todo = set(), [start]
    while todo:
        module = todo.pop()
        if module in seen or module not in modules:
            continue
        seen.add(module)
        for imp in imports_of(files[modules[module]], modules[module]):
            parts = imp.module.split(".")
            todo.extend(".".join(parts[:n]) for n in range(1, len(parts) + 1))  # a module runs its packages
        for node in ast.walk(ast.parse(files[modules[module]])):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                todo.extend(f"{node.module}.{alias.name}" for alias in node.names)  # `from core import layers`
    return seen


def shipped_by_provider_ignore() -> set[str]:
    import tomllib

    setup = tomllib.loads((ROOT / "provider_ignore/pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert [m for m in setup["py-modules"] if not m.startswith("provider_ignore.")] == []
    modules = [m.removeprefix("provider_ignore._vendor.").split(".") for m in setup["py-modules"]]
    return {"provider_ignore"} | {".".join(parts[:n]) for parts in modules for n in range(1, len(parts) + 1)}


def closure_offences(files: dict[str, str], shipped: set[str]) -> list[str]:
    reached = set().union(*(import_closure(f.removesuffix(".py").replace("/", "."), files)
                            for f in files if f.startswith("provider_ignore/")
                            and not f.endswith(("__init__.py", "setup.py"))),
                          import_closure("provider_ignore", files))
    return [f"provider_ignore reaches {m}, which provider_ignore/pyproject.toml does not ship"
            for m in sorted(reached - shipped)]


def test_the_backend_library_reaches_only_what_its_distribution_ships() -> None:
    files = {path: text for folder in sorted(OUR_PACKAGES) for path, text in sources(folder).items()}
    assert closure_offences(files, shipped_by_provider_ignore()) == []
    assert not {m for m in shipped_by_provider_ignore() if m.startswith(("judge.suspension", "probes", "canary"))}
    # `import provider_ignore` (the provider.ignore reader) stays on PyYAML: the msgspec declarations stay out.
    assert "core.schema" not in import_closure("provider_ignore", files)


def test_the_backend_closure_rule_can_fail() -> None:
    files = {path: text for folder in sorted(OUR_PACKAGES) for path, text in sources(folder).items()}
    files["core/layers.py"] += "\nfrom core import policy\n"   # a made-up climb into canary.yaml's core/policy.py
    files["judge/replies/encoding.py"] += "\nfrom judge.suspension import stats\n"  # and into the judge's rules
    found = closure_offences(files, shipped_by_provider_ignore())
    assert any("core.policy" in line for line in found) and any("judge.suspension.stats" in line for line in found), \
        found


def import_graph(files: dict[str, str]) -> dict[str, set[str]]:
    """{module: the modules of ours it imports} over `files`, lazy and TYPE_CHECKING imports included.

    `from pkg import mod` is an edge to the module pkg.mod; `from pkg import Name` (not a module), to pkg
    itself (its __init__). Running a package's __init__ before its module is Python's, not a dependency."""
    modules = {f.removesuffix(".py").removesuffix("/__init__").replace("/", "."): f for f in files}
    graph: dict[str, set[str]] = {}
    for module, file in modules.items():
        deps: set[str] = set()
        for node in ast.walk(ast.parse(files[file], filename=file)):
            if isinstance(node, ast.Import):
                deps.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = next(imp.module for imp in imports_of(ast.unparse(node), file))
                named = {f"{base}.{alias.name}" for alias in node.names}
                deps.update(named & modules.keys() or {base})
        graph[module] = {d for d in deps if d in modules and d != module}
    return graph


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Each set of modules that import one another round a circle (Tarjan's strongly connected components)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while (w := stack.pop()) != v:
                part.append(w)
            if part:
                circles.append(sorted([v, *part]))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return circles


def all_sources() -> dict[str, str]:
    return {path: text for folder in sorted(OUR_PACKAGES) for path, text in sources(folder).items()}


def test_no_import_circle() -> None:
    circles = import_circles(import_graph(all_sources()))
    assert not circles, "modules importing one another (TYPE_CHECKING counts): " + "; ".join(
        " <-> ".join(c) for c in circles)


def test_the_circle_rule_can_fail() -> None:
    files = all_sources()
    files["simulator/made_up.py"] = "from simulator.replies import plan_reply\n"
    files["simulator/plan.py"] += ("\nfrom typing import TYPE_CHECKING\n"
                                   "if TYPE_CHECKING:\n    from simulator import made_up\n")  # type-only counts
    circles = import_circles(import_graph(files))
    assert circles and any({"simulator.made_up", "simulator.plan", "simulator.replies"} <= set(c) for c in circles)


# git runs one way (argument lists, git's message in every error, the bot's identity): canary/state/git.py.
GIT_HOME = "canary/state/git.py"


def git_subprocesses(files: dict[str, str]) -> list[str]:
    """Each call of `files` whose command is a literal list or tuple starting with "git", outside GIT_HOME."""
    found = []
    for file, source in sorted(files.items()):
        if file == GIT_HOME:
            continue
        for node in ast.walk(ast.parse(source, filename=file)):
            if isinstance(node, ast.Call):
                for arg in node.args[:1]:
                    if (isinstance(arg, ast.List | ast.Tuple) and arg.elts and isinstance(arg.elts[0], ast.Constant)
                            and arg.elts[0].value == "git"):
                        found.append(f"{file}:{node.lineno} runs git itself: use {GIT_HOME} (Git)")
    return found


def test_git_runs_only_through_canary_state_git() -> None:
    found = git_subprocesses(all_sources())
    assert not found, "\n".join(found)


def test_the_git_rule_can_fail() -> None:
    made_up = "import subprocess\n\nsubprocess.run(['git', 'status'], check=False)\n"
    assert git_subprocesses({"canary/cli/commands/made_up.py": made_up, GIT_HOME: made_up}) == [
        "canary/cli/commands/made_up.py:3 runs git itself: use canary/state/git.py (Git)"]


# The audit log has one reader, canary/state/audit.py `read` (AuditLine): no other module opens it and
# parses its lines, so no consumer holds a line as a dict and no second reader drifts from the first.
AUDIT_HOME = "canary/state/audit.py"
FILE_READS = frozenset({"open", "read_text", "read_bytes"})


def audit_log_readers(files: dict[str, str]) -> list[str]:
    """Each call outside AUDIT_HOME that opens or reads a path whose expression names the audit log:
    `open(X)`, `os.open(X)`, `X.open()`, `X.read_text()`, `X.read_bytes()` with `audit` in X."""
    found = []
    for file, source in sorted(files.items()):
        if file == AUDIT_HOME:
            continue
        for node in nodes_in_order(source, file):
            if not isinstance(node, ast.Call):
                continue
            func, target = node.func, None
            if isinstance(func, ast.Name) and func.id == "open" and node.args:
                target = node.args[0]
            elif isinstance(func, ast.Attribute) and func.attr in FILE_READS:
                opener = isinstance(func.value, ast.Name) and func.value.id in ("os", "io") and node.args
                target = node.args[0] if opener else func.value
            if target is not None and "audit" in ast.unparse(target).lower():
                found.append(f"{file}:{node.lineno} reads the audit log itself: read it with {AUDIT_HOME} `read` "
                             "(AuditLine)")
    return found


def test_the_audit_log_is_read_only_through_its_reader() -> None:
    found = audit_log_readers(all_sources())
    assert not found, "\n".join(found)


def test_the_audit_reader_rule_can_fail() -> None:
    made_up = ("import json, os\n\n\ndef last(config):\n"
               "    lines = config.paths.audit.read_text().splitlines()\n"
               "    with open(config.paths.audit, 'rb') as handle:\n        handle.read()\n"
               "    fd = os.open(audit_path, os.O_RDONLY)\n"
               "    return [json.loads(line)['action'] for line in lines], fd, config.paths.state.read_text()\n")
    assert audit_log_readers({"canary/cli/commands/made_up.py": made_up, AUDIT_HOME: made_up}) == [
        f"canary/cli/commands/made_up.py:{n} reads the audit log itself: read it with canary/state/audit.py `read` "
        "(AuditLine)" for n in (5, 6, 8)]


# canary/'s packages, highest first: each imports only from those after it (ARCHITECTURE.md draws the order).
CANARY_FLOORS = ("cli", "round", "integrations", "outputs", "history", "state")


def canary_climbs(graph: dict[str, set[str]]) -> list[str]:
    """Each import of `graph` by a module of a canary/ package from a higher package of canary/."""
    def floor(module: str) -> int | None:
        parts = module.split(".")
        return CANARY_FLOORS.index(parts[1]) if parts[0] == "canary" and len(parts) > 2 else None

    return [f"{module} imports {dep}: canary/{CANARY_FLOORS[b]}/ is above canary/{CANARY_FLOORS[a]}/"
            for module, deps in sorted(graph.items()) if (a := floor(module)) is not None
            for dep in sorted(deps) if (b := floor(dep)) is not None and b < a]


def test_every_canary_package_is_on_a_floor_and_architecture_md_draws_them() -> None:
    packages = {p.name for p in (ROOT / "canary").iterdir() if (p / "__init__.py").exists()}
    assert packages == set(CANARY_FLOORS)
    drawn = " → ".join(f"{name}/" for name in CANARY_FLOORS)
    assert drawn in (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8"), drawn


def test_no_canary_package_imports_a_higher_one() -> None:
    found = canary_climbs(import_graph(all_sources()))
    assert not found, "\n".join(found)


def test_the_floor_rule_can_fail() -> None:
    files = all_sources()
    files["canary/state/made_up.py"] = "from canary.round.judging import run_judge\n"
    assert canary_climbs(import_graph(files)) == [
        "canary.state.made_up imports canary.round.judging: canary/round/ is above canary/state/"]


# A test module is run, never imported: what tests share lives in support modules (`*_support.py`,
# conftest fixtures, the named helpers like simkit and git_world), so running one test file never
# runs another's module-level code and a test renamed or deleted breaks no other file.
def imports_of_test_modules(files: dict[str, str]) -> list[str]:
    """Each import, in a test module (test_*.py), of another test module (a module named test_*)."""
    found = []
    for file, source in sorted(files.items()):
        if not Path(file).name.startswith("test_"):
            continue
        for node in ast.walk(ast.parse(source, filename=file)):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or "", *(f"{node.module or ''}.{alias.name}" for alias in node.names)]
            else:
                continue
            for name in names:
                if name.split(".")[-1].startswith("test_"):
                    found.append(f"{file}:{node.lineno} imports the test module {name.split('.')[-1]}: "
                                 "move what they share to a support module (*_support.py) or a conftest fixture")
                    break
    return found


def test_no_test_module_imports_another() -> None:
    found = imports_of_test_modules(sources("tests"))
    assert not found, "\n".join(found)


def test_the_test_import_rule_can_fail() -> None:
    made_up = {
        "tests/probes/http/test_made_up.py": "from test_client import chat\n\ndef f():\n    import test_wire\n",
        "tests/canary/test_other.py": "from tests.canary import test_made_up\nfrom client_support import chat\n",
        "tests/probes/http/client_support.py": "from test_client import chat\n",   # a support module: not a test
    }
    found = imports_of_test_modules(made_up)
    assert [f.split(" imports")[0] for f in found] == [
        "tests/canary/test_other.py:1", "tests/probes/http/test_made_up.py:1", "tests/probes/http/test_made_up.py:4"]
    assert "imports the test module test_client: move what they share" in found[1]


# Codes, not prose (judge/replies/verdict.py): a verdict's identity is its code, a member of its
# family's StrEnum; a literal or a missing code would put the words back in charge. mypy holds
# `failed`, `inconclusive` and `passed` to a StrEnum member; `Verdict(` itself also takes an attempt's
# code read back as text (a contract restating it), so this rule keeps literals out of it.
VERDICT_MAKERS = {"Verdict": 1}   # the callable -> where its code argument sits


def verdict_code_offences(files: dict[str, str]) -> list[str]:
    """Each `Verdict(` call without a code argument, or with a string literal (or f-string) for one."""
    found = []
    for file, source in sorted(files.items()):
        if "Verdict" not in source:
            continue   # only modules of the verdict's world call these names so
        for node in nodes_in_order(source, file):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else \
                node.func.attr if isinstance(node.func, ast.Attribute) else ""
            if name not in VERDICT_MAKERS:
                continue
            where = VERDICT_MAKERS[name]
            given = [k.value for k in node.keywords if k.arg == "code"]
            code = node.args[where] if len(node.args) > where + 1 else given[0] if given else None
            if code is None:
                found.append(f"{file}:{node.lineno} {name}( without a code: pass its family's StrEnum member")
            elif isinstance(code, (ast.Constant, ast.JoinedStr)):
                found.append(f"{file}:{node.lineno} {name}( with a literal code: use its family's StrEnum member")
    return found


def test_every_verdict_passes_a_code() -> None:
    files = {**product_sources(), **sources("benchmarks")}
    found = verdict_code_offences(files)
    assert not found, "\n".join(found)


def test_the_verdict_code_rule_can_fail() -> None:
    source = ("from judge.replies.verdict import Outcome, Verdict, passed\n"
              "a = Verdict(Outcome.FAIL, 'slow: 12 s')\n"             # the reason where the code goes
              "b = Verdict(Outcome.FAIL, 'ttft_exceeded', 'slow')\n"  # a literal code
              "c = Verdict(Outcome.INCONCLUSIVE, f'{x}_other', 'odd')\n"   # an f-string code
              "d = Verdict(Outcome.FAIL, LatencyCode.TTFT_EXCEEDED, 'slow')\n"   # fine
              "e = Verdict(Outcome.PASS, code=Common.PASS, reason='ok')\n"   # fine
              "f = passed('ok')\n")                                   # fine: a pass is `pass`
    found = verdict_code_offences({"judge/replies/bad.py": source})
    assert [f.split(" ")[0] for f in found] == ["judge/replies/bad.py:2", "judge/replies/bad.py:3",
                                                "judge/replies/bad.py:4"], found


# An action's value (judge/suspension/decisions.py Action) and an exclusion layer's name (core/layers.py
# LAYERS) are spelled once, in their definition: everyone else names the member (`Action.SUSPEND`,
# `layer.name`), so a renamed or a mistyped one cannot slip by (the site feed once keyed `model_wide`
# where the action is `model_wide_guard`). Scope, so that English is not caught: only a string constant
# whose *whole* value equals one of them, in product code, docstrings left out ("suspend" in a sentence
# or a reason is words, `"suspend"` alone is the action).
DEFINITIONS = ("judge/suspension/decisions.py", "core/layers.py")
# Some values are also words of another vocabulary, spelled alike but free to differ (renaming the action
# must not rename them). Such a word is spelled once, in its own vocabulary's declaration, which this rule
# leaves alone (other_vocabularies), and everyone else names it from there:
# - the command line's names: a click command's or group's name (`@click.command("lift")`), and the
#   file options of canary/cli/commands/_options.py's `common` (`@common(files=("builtin", ...))`:
#   canary.yaml's `paths.` settings, which `common` checks against core/config.py PathSettings);
# - a StrEnum's members: a vocabulary declaring its own (the refusal controls' ControlCode, the status
#   page's RoutingState, observe-report's ObserveOutcome);
# - any other word says so on its line: `# not the action: why`
#   (or `# not the layer: why`), e.g. the file option `builtin` (the paths. setting, not the layer).
NOT_THE_VALUE = ("# not the action", "# not the layer")


def other_vocabularies(source: str, tree: ast.Module) -> set[int]:
    """The ids of the string constants of `tree` that are another vocabulary's words (above)."""
    declared: list[ast.AST] = []
    for node in ast.walk(tree):
        decorators = node.decorator_list if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else []
        for call in (d for d in decorators if isinstance(d, ast.Call)):
            if isinstance(call.func, ast.Attribute) and call.func.attr in ("command", "group"):
                declared += call.args[:1] + [k.value for k in call.keywords if k.arg == "name"]
            elif isinstance(call.func, ast.Name) and call.func.id == "common":
                declared += [k.value for k in call.keywords if k.arg == "files"]
        if isinstance(node, ast.ClassDef) and any(isinstance(base, ast.Name) and base.id == "StrEnum"
                                                  for base in node.bases):
            declared += [item.value for item in node.body if isinstance(item, ast.Assign)]
    lines = source.splitlines()
    marked = {id(node) for node in ast.walk(tree) if isinstance(node, ast.Constant)
              and any(mark in lines[node.lineno - 1] for mark in NOT_THE_VALUE)}
    return marked | {id(node) for top in declared for node in ast.walk(top) if isinstance(node, ast.Constant)}


def defined_values() -> dict[str, str]:
    from core.layers import LAYERS
    from judge.suspension.decisions import Action

    return {a.value: f"Action.{a.name}" for a in Action} | {layer.name: "a layer of core/layers.py LAYERS"
                                                            for layer in LAYERS}


def value_offences(files: dict[str, str], values: dict[str, str]) -> list[str]:
    """Each string constant (not a docstring, nor another vocabulary's) whose whole value is an
    action's or a layer's, outside DEFINITIONS."""
    found = []
    for file, source in sorted(files.items()):
        if file in DEFINITIONS:
            continue
        tree = ast.parse(source, filename=file)
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                      and node.body and isinstance(node.body[0], ast.Expr)
                      and isinstance(node.body[0].value, ast.Constant)}
        left_alone = docstrings | other_vocabularies(source, tree)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in values
                    and id(node) not in left_alone):
                found.append((file, node.lineno, node.col_offset,
                              f"{file}:{node.lineno} spells {node.value!r}: name {values[node.value]}"))
    return [offence for *_, offence in sorted(found)]


def test_actions_and_layers_are_spelled_only_in_their_definition() -> None:
    found = value_offences(product_sources(), defined_values())
    assert not found, "\n".join(found)


def test_the_value_rule_can_fail() -> None:
    source = ('"""Suspend: the judge\'s words may say suspend."""\n'
              'KEYS = {"model_wide": "guard", "model_wide_guard": "guard"}\n'   # the second is the action
              'if layer == "incident":\n    pass\n'
              'reason = "suspend the host"\n'                                   # words, not the value
              'ok = Action.SUSPEND\n')
    found = value_offences({"canary/outputs/site/bad.py": source},
                           {"model_wide_guard": "Action.MODEL_WIDE_GUARD", "incident": "a layer", "suspend": "x"})
    assert found == ["canary/outputs/site/bad.py:2 spells 'model_wide_guard': name Action.MODEL_WIDE_GUARD",
                     "canary/outputs/site/bad.py:3 spells 'incident': name a layer"], found
    assert value_offences({"judge/suspension/decisions.py": source}, {"model_wide_guard": "x"}) == []


def test_the_value_rule_leaves_only_another_vocabularys_words_alone() -> None:
    source = ('@click.group("incident")\n'                          # a command's name: the shell's word
              'def incident() -> None: ...\n'
              '@incident.command(name="lift")\n'
              '@common(files=("builtin", "audit"))\n'               # canary.yaml paths. settings
              'def lift() -> None: ...\n'
              'class Ending(StrEnum):\n    LIFT = "lift"\n'          # a vocabulary declaring its own member
              'class Plain:\n    LIFT = "lift"\n'                    # not a StrEnum: a copy of the action
              'FILES = ("builtin",)  # not the layer: a setting\n'   # marked on its line
              'OTHER = ("builtin",)  # not a layer\n'               # a comment, not the mark
              'when = click.option("--x", help="builtin")\n'         # an option's help: not a command's name
              'done = common(files=("lift",)) or match.group("incident")\n'  # not decorating a command
              'def g() -> None:\n    """lift"""\n')                  # a docstring is words
    values = {"lift": "Action.LIFT", "incident": "a layer", "builtin": "a layer"}
    found = value_offences({"canary/cli/commands/made_up.py": source}, values)
    assert [f.split(" ")[0] for f in found] == [f"canary/cli/commands/made_up.py:{n}" for n in (9, 11, 12, 13, 13)], \
        found
