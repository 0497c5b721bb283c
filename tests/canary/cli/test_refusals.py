"""A command refuses by raising; canary/cli/main.py says every CanaryError once, with the command's exit code."""

from __future__ import annotations

from pathlib import Path

import pytest
from judge_cli_support import Files, files_in


@pytest.fixture
def f(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Files:
    return files_in(tmp_path, capsys)


@pytest.mark.parametrize("command", [("lift", "--model", "m/x", "--provider", "p/x", "--reason", "r"),
                                     ("status",), ("incident", "add", "--model", "m/x", "--provider", "p/x",
                                                   "--reason", "r"), ("observe-report",), ("history",)])
def test_a_bad_time_is_said_once_as_the_command_named_and_refused_with_2(f: Files, command: tuple[str, ...]) -> None:
    code, out, err = f.canary(*command, "--now", "soon")
    assert code == 2 and out == ""
    assert err == f"canary {command[0]}: --now: 'soon' is not an ISO 8601 time like 2026-11-29T22:30:00Z\n"


def test_ignore_at_a_bad_time_is_refused_as_canary_ignore(f: Files) -> None:
    assert f.canary("ignore", "--at", "soon")[::2] == (
        2, "canary ignore: --at: 'soon' is not an ISO 8601 time like 2026-11-29T22:30:00Z\n")


def test_commit_and_fetch_state_refuse_with_1_as_they_always_did(f: Files, tmp_path: Path) -> None:
    code, _, err = f.canary("commit", "--repo", str(tmp_path))  # no git repository there
    assert code == 1 and err.startswith("canary commit: ") and "not a git repository" in err
    code, _, err = f.canary("fetch-state", "--repo", str(tmp_path))
    assert code == 1 and err.startswith("canary fetch-state: ") and "not a git repository" in err


def test_a_bad_configuration_is_refused_by_every_command_and_found_invalid_by_validate(f: Files) -> None:
    f.config.write_text("mode: sometimes\n", encoding="utf-8")
    for command in ("status", "judge", "commit"):
        code, _, err = f.canary(command)
        assert code == 2 and err.startswith("canary: configuration error: "), (command, err)
    code, _, err = f.canary("validate")
    assert code == 1 and err.startswith("canary validate: ")
