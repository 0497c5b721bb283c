"""Lint of the whole tree with pyproject's rule sets (pyflakes, bugbear, import order, pyupgrade, line length,
and the house's complexity and argument and statement counts), the sizes of its functions and core/ modules,
and its dead code (vulture)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing_under_the_projects_rule_sets() -> None:
    proc = subprocess.run([_tool("ruff"), "check", "--output-format", "concise", "."], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_no_file_of_the_repository_holds_a_merge_conflict_marker() -> None:
    # A conflict left inside a docstring or a Markdown page passes every other check.
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    marked = [name for name in tracked if (ROOT / name).is_file() and (ROOT / name).suffix in CHECKED_SUFFIXES
              and any(line.startswith(("<<<<<<< ", ">>>>>>> ")) for line in
                      (ROOT / name).read_text(encoding="utf-8", errors="replace").splitlines())]
    assert marked == [], f"merge conflict markers in {marked}"


CHECKED_SUFFIXES = (".py", ".md", ".yaml", ".yml", ".toml", ".js", ".css", ".json", ".txt")


HOUSE = ("core", "judge", "probes", "canary", "simulator", "provider_ignore")


def _tool(name: str) -> str:
    path = shutil.which(name) or str(Path(sys.executable).parent / name)
    if not Path(path).exists():
        pytest.skip(f"{name} is not installed: `./dev test` installs it with the test extras")
    return path


# What vulture cannot see being used: what a framework calls by its name or decorator, the fields
# serialisation reads, and the public API of the libraries others import.
VULTURE_DECORATORS = ("@*.command", "@*.group", "@click.*")
VULTURE_NAMES = (
    "pytest_*", "canary_case_id",                                       # pytest hooks; a fixture asked for by name
    "dist", "distload",                                                 # xdist's options, turned off (options.py)
    "preserve_quotes", "clean_alluredir", "_value_",                    # ruamel's, allure's and Enum's attributes
    # wire-format and file fields, read by msgspec's encoders
    "schema_version", "generated_at", "stale_at_generation", "in_provider_ignore", "tier_reasons", "ttft_p50_s",
    "ttft_p95_s", "tokens_per_s_p50", "billed_over_listed", "provider_ignore", "badge", "headers_s",
    "internal_reasoning", "input_cache_read", "input_cache_write",
    # the simulator's fault parameters, read from a scenario's `faults:` by name
    "only_when", "in_band", "blocking", "factor", "answer_cap", "tokens_per_call", "ms", "lone", "delay_ms", "with_",
    # public API: provider_ignore for chat backends, the production record's schema (its regenerate
    # command), the simulator's controls for tests and benchmarks
    "ProviderIgnore", "ambiguous_providers", "from_body", "from_chunks", "json_schema",
    "host_peak_in_flight", "set_round", "set_now", "ECHO_INTO",
)


def test_vulture_finds_no_dead_code() -> None:
    proc = subprocess.run([sys.executable, "-m", "vulture", *HOUSE, "--min-confidence", "60",
                           "--ignore-decorators", ",".join(VULTURE_DECORATORS),
                           "--ignore-names", ",".join(VULTURE_NAMES)],
                          cwd=ROOT, capture_output=True, text=True)
    if "No module named vulture" in proc.stderr:
        pytest.skip("vulture is not installed: `./dev test` installs it with the test extras")
    assert proc.returncode == 0, proc.stdout + proc.stderr


MAX_FUNCTION_LINES, MAX_CORE_MODULE_LINES = 60, 450


def test_no_function_is_over_60_lines_and_no_core_module_over_450() -> None:
    too_long = []
    for path in sorted(p for house in HOUSE for p in (ROOT / house).rglob("*.py")):
        name, text = path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8")
        if name.startswith("core/") and len(text.splitlines()) > MAX_CORE_MODULE_LINES:
            too_long.append(name)
        too_long += [f"{name}:{node.name}" for node in ast.walk(ast.parse(text))
                     if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                     and node.end_lineno is not None and node.end_lineno - node.lineno >= MAX_FUNCTION_LINES]
    assert too_long == []
