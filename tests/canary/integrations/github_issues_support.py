"""What the issue-sync tests share: the endpoints, a decisions.json document, `canary issues sync` run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fake_github import REPO, TOKEN, FakeGitHub

from canary.cli.main import main

MODEL, TAG, OTHER = "deepseek/deepseek-chat-v3-0324", "cinder/fp8", "dune/int4"


def decisions(round_id: str, *pairs: tuple[str, str], mode: str = "enforce") -> dict[str, Any]:
    return {"schema_version": 1, "round_id": round_id, "mode": mode, "now": "2026-11-29T22:30:00Z",
            "decisions": [{"model": MODEL, "provider": tag, "action": action, "rule": "failed_streak",
                           "reason": f"{action} here",
                           "evidence": [{"contract": "language", "outcome": "fail", "reason": "garbage"}]}
                          for action, tag in pairs]}


def cli(gh: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        doc: dict[str, Any], *extra: str, token: str = TOKEN) -> tuple[int, str]:
    path = tmp_path / "decisions.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    monkeypatch.setenv("GITHUB_TOKEN", token)
    monkeypatch.setenv("GITHUB_API_URL", gh.url)
    monkeypatch.setenv("GITHUB_REPOSITORY", REPO)
    for name, value in (("GITHUB_SERVER_URL", "https://github.com"), ("GITHUB_RUN_ID", "4242")):
        monkeypatch.setenv(name, value)
    capsys.readouterr()
    code = main(["issues", "sync", "--decisions", str(path), *extra])
    out = capsys.readouterr()
    return code, out.out + out.err
