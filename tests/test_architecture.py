"""The import directions of ARCHITECTURE.md, checked on the source (not on trust)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# folder -> top-level modules it must never import
FORBIDDEN = {
    "judge": {"probes", "canary", "simulator", "pytest", "_pytest", "httpx", "aiohttp", "allure", "yaml", "os",
              "subprocess", "socket", "time"},
    "simulator": {"probes", "judge", "canary", "pytest"},
    "probes": {"simulator"},
}
# the probes plugin may start the bundled simulator as a subprocess (conftest only)
ALLOWED = {("probes", "conftest.py", "simulator")}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("folder", sorted(FORBIDDEN))
def test_a_layer_imports_only_what_architecture_md_allows(folder: str) -> None:
    offences = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        for name in sorted(_imports(path) & FORBIDDEN[folder]):
            if (folder, path.name, name) not in ALLOWED:
                offences.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not offences, "\n".join(offences)


def test_judge_is_importable_without_pytest() -> None:
    import subprocess
    import sys

    code = ("import sys; sys.modules['pytest'] = None; sys.modules['_pytest'] = None\n"
            "import judge.language, judge.refusal, judge.structured, judge.rules\n"
            "print(judge.refusal.assess('', 'stop').outcome)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "fail"
