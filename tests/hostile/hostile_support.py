"""Shared helpers of the hostile-input tests: the judge's CLI harness and a strict file fingerprint."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

# Reuse the judge's results.json factories and the CLI harness rather than copying them.
_TESTS = Path(__file__).resolve().parents[1]
for folder in ("judge", "canary"):
    if str(_TESTS / folder) not in sys.path:
        sys.path.insert(0, str(_TESTS / folder))

from judge_cli_support import HALF_HOUR, MODEL, PROVIDERS, T0, Files, files_in, iso, results

__all__ = [
    "BUILTIN_TEXT",
    "HALF_HOUR",
    "INCIDENTS_TEXT",
    "MODEL",
    "PROVIDERS",
    "T0",
    "Files",
    "files_in",
    "fingerprint",
    "iso",
    "parse_audit",
    "results",
    "seeded",
]

BUILTIN_TEXT = f"""# Reviewed exclusions (a person's comment that must survive)
"{MODEL}":
  - provider: "{PROVIDERS[4]}"
    reason: "filters supported roleplay"
    since: "2026-11-01"
"""
INCIDENTS_TEXT = f"""# Runtime incidents
"{MODEL}":
  - provider: "{PROVIDERS[3]}"
    reason: "outage reported by support"
    added_at: "2026-11-29T20:00:00Z"
    expires: "2026-12-30T00:00:00Z"
"""


def fingerprint(root: Path) -> dict[str, tuple[bytes, int] | None]:
    """Every file (bytes and mtime in ns) and every directory under root: proves nothing was written."""
    out: dict[str, tuple[bytes, int] | None] = {}
    for p in sorted(root.rglob("*")):
        rel = str(p.relative_to(root))
        out[rel] = (p.read_bytes(), p.stat().st_mtime_ns) if p.is_file() else None
    return out


def parse_audit(path: Path) -> list[dict[str, Any]]:
    """Every audit line decoded; fails the test on a line that does not parse."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def seeded(tmp_path: Path, capsys: pytest.CaptureFixture[str] | None = None) -> Files:
    """A folder holding a real state (one suspension), an audit log and both exclusion files."""
    f = files_in(tmp_path, capsys)
    f.builtin.parent.mkdir(parents=True, exist_ok=True)
    f.builtin.write_text(BUILTIN_TEXT, encoding="utf-8")
    f.incidents.write_text(INCIDENTS_TEXT, encoding="utf-8")
    for i in range(2):
        at = T0 + i * HALF_HOUR
        path = f.results(f"seed{i}.json", {PROVIDERS[0]: "fail"}, at=at)
        code, _, err = f.canary("judge", str(path), "--now", iso(at), "--no-notify")
        assert code == 0, err
    return f
