"""A planted state/audit.jsonl that is not a regular file: every command refuses, nothing is written.

As a link, the audit log would make `canary lift`, `canary incident` and `canary judge` append to
any file the runner can write (`/etc/passwd` as root). canary appends only to a regular file.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hostile_support import HALF_HOUR, MODEL, PROVIDERS, T0, Files, fingerprint, iso, seeded

NEXT = T0 + 2 * HALF_HOUR


@pytest.fixture
def f(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Files:
    monkeypatch.delenv("CANARY_WEBHOOK_URL", raising=False)
    (tmp_path / "repo").mkdir()
    return seeded(tmp_path / "repo", capsys)


def _commands(f: Files) -> dict[str, list[str]]:
    path = f.results("next.json", {PROVIDERS[1]: "fail"}, at=NEXT)
    return {
        "lift": ["lift", "--model", MODEL, "--provider", PROVIDERS[0], "--reason", "fixed"],
        "incident": ["incident", "add", "--model", MODEL, "--provider", PROVIDERS[2], "--reason", "outage"],
        "judge": ["judge", str(path), "--no-notify"],
    }


@pytest.mark.parametrize("command", ["lift", "incident", "judge"])
def test_an_audit_log_that_is_a_symlink_is_refused_and_its_target_is_untouched(
        f: Files, tmp_path: Path, command: str) -> None:
    victim = tmp_path / "passwd"
    victim.write_text("root:x:0:0:root:/root:/bin/bash\n", encoding="utf-8")
    f.audit.unlink()
    f.audit.symlink_to(victim)
    args = _commands(f)[command]
    before, victim_before = fingerprint(f.root), victim.read_bytes()

    code, _, err = f.canary(*args, "--now", iso(NEXT))

    assert code == 2 and str(f.audit) in err and "symbolic link" in err and "Traceback" not in err
    assert victim.read_bytes() == victim_before
    assert fingerprint(f.root) == before  # neither the state, the incidents nor the decisions moved


def test_an_audit_log_that_is_a_fifo_is_refused(f: Files) -> None:
    f.audit.unlink()
    os.mkfifo(f.audit)
    code, _, err = f.canary(*_commands(f)["lift"], "--now", iso(NEXT))
    assert code == 2 and "not a regular file" in err
