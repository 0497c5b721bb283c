"""Helpers for driving the judge's commands through click's CliRunner (the `canary` group) in a temporary folder."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

# The results.json factories live with the judge's tests; share them rather than copy them.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "judge"))

from rules_factories import HALF_HOUR, MODEL, PROVIDERS, T0, iso, results

from canary.cli.main import canary

__all__ = ["HALF_HOUR", "MODEL", "PROVIDERS", "T0", "Files", "files_in", "iso", "results"]


@dataclass
class Files:
    """A canary.yaml plus every file the judge reads or writes, all under one folder."""

    root: Path
    capsys: pytest.CaptureFixture[str] | None = None

    @property
    def config(self) -> Path:
        return self.root / "canary.yaml"

    @property
    def state(self) -> Path:
        return self.root / "state" / "canary-state.json"

    @property
    def audit(self) -> Path:
        return self.root / "state" / "audit.jsonl"

    @property
    def builtin(self) -> Path:
        return self.root / "exclusions" / "builtin.yaml"

    @property
    def incidents(self) -> Path:
        return self.root / "exclusions" / "incidents.yaml"

    @property
    def silences(self) -> Path:
        return self.root / "exclusions" / "silences.yaml"

    @property
    def maintenance(self) -> Path:
        return self.root / "exclusions" / "maintenance.yaml"

    @property
    def decisions(self) -> Path:
        return self.root / "reports" / "decisions.json"

    def write_config(self, mode: str = "enforce") -> None:
        self.config.write_text(
            f"mode: {mode}\nmodels: [{MODEL}]\npaths:\n"
            f"  reports: {self.root / 'reports'}\n  state: {self.state}\n  audit: {self.audit}\n"
            f"  builtin: {self.builtin}\n  incidents: {self.incidents}\n  silences: {self.silences}\n"
            f"  maintenance: {self.maintenance}\n",
            encoding="utf-8")

    def results(self, name: str, spec: dict[str, Any] | None = None, **kw: Any) -> Path:
        path = self.root / "reports" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(results(spec, **kw)), encoding="utf-8")
        return path

    def canary(self, *args: str) -> tuple[int, str, str]:
        """Run `canary --config <tmp> ARGS`; returns (exit code, stdout, stderr)."""
        result = CliRunner().invoke(canary, ["--config", str(self.config), *args], prog_name="canary")
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        return result.exit_code, result.stdout, result.stderr

    def audit_lines(self) -> list[dict[str, Any]]:
        if not self.audit.exists():
            return []
        return [json.loads(line) for line in self.audit.read_text(encoding="utf-8").splitlines()]

    def snapshot(self) -> dict[str, bytes]:
        """Every file under root, to prove nothing was written."""
        return {str(p): p.read_bytes() for p in sorted(self.root.rglob("*")) if p.is_file()}


def files_in(tmp_path: Path, capsys: pytest.CaptureFixture[str] | None = None, mode: str = "enforce") -> Files:
    f = Files(tmp_path, capsys)
    f.write_config(mode)
    return f
