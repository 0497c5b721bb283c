"""The exception tree drawn in core/errors.py's docstring is the real class hierarchy.

Each line of the drawing names a class, its place under its parent and the file defining it; the
test imports each class from that file and checks its parent, and reads every source file to
make sure no class derives from a drawn error without being drawn itself.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import re
from pathlib import Path

import pytest

import core.errors
from core.errors import CanaryError

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("core", "judge", "simulator", "probes", "canary")
LINE = re.compile(r"^(?P<indent>[ │├└─]*)(?P<name>[A-Z]\w+)\b(?P<rest>.*)$")
FILE = re.compile(r"\((?P<file>[\w/]+\.py)(?:; [^()]*)?\)")


def drawing() -> dict[str, tuple[str | None, str]]:
    """{class name: (parent name or None, defining file)} as core/errors.py draws them."""
    doc = core.errors.__doc__ or ""
    lines = [line[4:] for line in doc.splitlines() if line.startswith("    ") and line.strip()]
    tree: dict[str, tuple[str | None, str]] = {}
    stack: list[tuple[int, str]] = []  # (depth, name) of the current branch
    for line in lines:
        match = LINE.match(line)
        if match is None or not (match["indent"] or not stack):
            break  # the drawing is the first indented block; it ends where the prose starts
        depth = len(match["indent"]) // 4
        while stack and stack[-1][0] >= depth:
            stack.pop()
        files = FILE.findall(match["rest"])
        tree[match["name"]] = (stack[-1][1] if stack else None, files[-1] if files else "core/errors.py")
        stack.append((depth, match["name"]))
    return tree


def cls(name: str, file: str) -> type:
    module = importlib.import_module(file.removesuffix(".py").replace("/", "."))
    value = getattr(module, name, None)
    assert isinstance(value, type), f"core/errors.py draws {name} in {file}, which defines no such class"
    assert value.__module__ == module.__name__, f"{name} is drawn in {file} but defined in {value.__module__}"
    return value


def test_the_drawing_has_the_root_and_its_branches() -> None:
    tree = drawing()
    assert tree["CanaryError"] == (None, "core/errors.py")
    assert {"ConfigError", "InputError", "RuleError", "UpstreamError", "SimulatorError"} <= tree.keys()
    # Once outside the tree: a site that cannot be built, a simulator that did not start.
    assert {"SiteError", "SimulatorStartError"} <= tree.keys()
    assert len(tree) >= 20


@pytest.mark.parametrize("name", sorted(drawing()))
def test_each_drawn_class_has_the_drawn_parent(name: str) -> None:
    parent, file = drawing()[name]
    klass = cls(name, file)
    if parent is None:
        assert klass is CanaryError
        return
    drawn_parent = cls(parent, drawing()[parent][1])
    assert drawn_parent in klass.__bases__, (
        f"{name} is drawn under {parent}, but its bases are {[b.__name__ for b in klass.__bases__]}")
    assert issubclass(klass, CanaryError)


def test_every_subclass_of_a_drawn_error_is_drawn() -> None:
    tree = drawing()
    undrawn = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.ClassDef) or node.name in tree:
                    continue
                bases = {b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else ""
                         for b in node.bases}
                if bases & tree.keys():
                    undrawn.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}({', '.join(sorted(bases))})")
    assert not undrawn, "draw these in core/errors.py's docstring:\n" + "\n".join(undrawn)


def test_the_check_reads_a_drawing_line_by_line() -> None:
    match = LINE.match("│   ├── StoreError                  one file (core/store.py)")
    assert match is not None and match["name"] == "StoreError" and len(match["indent"]) // 4 == 2
    assert FILE.findall("a value (canary/x.py; ValueError) and (core/y.py)") == ["canary/x.py", "core/y.py"]


# How a probe case ends as pytest sees it: statuses, not errors (core/errors.py's docstring names them).
PYTEST_STATUSES = frozenset({"ContractViolation", "HostUnreachable", "RoundIncomplete"})
BUILTIN_EXCEPTIONS = frozenset(name for name, value in vars(builtins).items()
                               if isinstance(value, type) and issubclass(value, BaseException))


def undrawn_exceptions(files: dict[str, str], tree: dict[str, tuple[str | None, str]]) -> list[str]:
    """Exception classes of `files` ({path: source}) that are neither drawn, private (`_Name`: leaves a
    block) nor a pytest status: deriving from a builtin exception, a drawn class or another such class."""
    classes = [(file, node) for file, source in sorted(files.items()) for node in ast.walk(ast.parse(source))
               if isinstance(node, ast.ClassDef)]
    exceptions = set(BUILTIN_EXCEPTIONS) | tree.keys()
    grew = True
    while grew:  # a class deriving from an undrawn exception of ours is an exception too
        before = len(exceptions)
        exceptions |= {node.name for _, node in classes if _base_names(node) & exceptions}
        grew = len(exceptions) > before
    return [f"{file}:{node.lineno} {node.name}({', '.join(sorted(_base_names(node)))})" for file, node in classes
            if node.name in exceptions and _base_names(node) & exceptions and node.name not in tree
            and not node.name.startswith("_") and node.name not in PYTEST_STATUSES]


def _base_names(node: ast.ClassDef) -> set[str]:
    return {b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else "" for b in node.bases}


def _our_sources() -> dict[str, str]:
    return {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8")
            for package in (*PACKAGES, "provider_ignore") for p in sorted((ROOT / package).rglob("*.py"))}


def test_no_exception_class_outside_the_drawn_tree() -> None:
    found = undrawn_exceptions(_our_sources(), drawing())
    assert not found, "draw these in core/errors.py's docstring (or make them private):\n" + "\n".join(found)
    assert all(name in (core.errors.__doc__ or "") for name in PYTEST_STATUSES)


def test_the_exception_rule_can_fail() -> None:
    made_up = ("class Oops(ValueError):\n    pass\n\n\nclass Worse(Oops):\n    pass\n\n\n"
               "class _Leave(Exception):\n    pass\n")  # private: leaves a block, allowed
    found = undrawn_exceptions({**_our_sources(), "core/made_up.py": made_up}, drawing())
    assert found == ["core/made_up.py:1 Oops(ValueError)", "core/made_up.py:5 Worse(Oops)"]
