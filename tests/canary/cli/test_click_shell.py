"""The `canary` shell as click builds it: the explicit command list, shared options, usage errors, exit codes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result

from canary.cli.commands._options import FILE_OPTIONS, PATH_SETTINGS, common
from canary.cli.main import COMMANDS, canary

COMMAND_MODULES = sorted(p.stem.replace("_", "-") for p in (Path(__file__).resolve().parents[3] / "canary" / "cli"
                                                               / "commands").glob("[!_]*.py"))


def run(*args: str) -> Result:
    return CliRunner().invoke(canary, list(args), prog_name="canary")


def test_every_command_module_is_in_the_explicit_list_under_its_name() -> None:
    assert sorted(c.name or "" for c in COMMANDS) == COMMAND_MODULES
    assert sorted(canary.commands) == COMMAND_MODULES


def test_the_help_lists_every_command_with_its_line() -> None:
    result = run("--help")
    assert result.exit_code == 0
    for command in COMMANDS:
        assert f"  {command.name} " in result.stdout
    assert "apply one round's results to the state" in result.stdout


def test_a_commands_help_shows_its_options_and_the_shared_ones() -> None:
    result = run("judge", "--help")
    assert result.exit_code == 0
    for option in ("--mode [observe|enforce]", "--decisions-out PATH", "--no-notify", "--expect-models M1,M2",
                   "--allow-simulator", "--config FILE", "--state PATH", "--audit PATH", "--now ISO8601"):
        assert option in result.stdout, option
    assert run("judge", "-h").stdout == result.stdout


def test_a_file_option_is_a_setting_of_canary_yamls_paths_or_refused_when_declared() -> None:
    # The names are spelled as literals (tests/test_architecture.py leaves `common`'s files alone): this holds them.
    assert set(FILE_OPTIONS) <= PATH_SETTINGS and {"builtin", "incidents", "state", "reports"} <= PATH_SETTINGS
    assert "state_branch" not in PATH_SETTINGS  # a branch name, not a file
    with pytest.raises(TypeError, match=r"^common\(files=\.\.\.\): bultin is not a file of canary.yaml's paths "):
        common(files=("state", "bultin"))


def test_probe_help_keeps_its_exit_code_table_as_written() -> None:
    result = run("probe", "--help")
    assert result.exit_code == 0
    assert "  0  the round completed (whatever the hosts did);\n" in result.stdout
    assert "  3  the upstream refused the API key.\n" in result.stdout


def test_an_unknown_option_is_clicks_usage_error_with_exit_2() -> None:
    result = run("judge", "--bogus")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith("Usage: canary judge [OPTIONS] [RESULTS.json]\n")
    assert "Error: No such option '--bogus'." in result.stderr


def test_a_bad_choice_is_a_usage_error_with_exit_2() -> None:
    result = run("judge", "--mode", "sometimes")
    assert result.exit_code == 2 and "Invalid value for '--mode'" in result.stderr


def test_a_bad_commit_message_is_a_usage_error_with_exit_2() -> None:
    result = run("commit", "--message", "two\nlines")
    assert result.exit_code == 2 and "one line of plain ASCII" in result.stderr


def test_no_command_prints_the_help_and_exits_2() -> None:
    result = run()
    assert result.exit_code == 2 and "Commands:" in result.stderr + result.stdout


@pytest.mark.parametrize(("before", "after"), [(["--config", "a.yaml"], []), ([], ["--config", "b.yaml"]),
                                               (["--config", "a.yaml"], ["--config", "b.yaml"])])
def test_config_is_taken_before_or_after_the_command_name_the_later_winning(tmp_path: Path, before: list[str],
                                                                            after: list[str]) -> None:
    for name in ("a.yaml", "b.yaml"):
        (tmp_path / name).write_text("models: [" + name[0] + "/model]\n", encoding="utf-8")
    paths = [str(tmp_path / a) if a.endswith(".yaml") else a for a in [*before, "models", *after]]
    result = CliRunner().invoke(canary, paths, prog_name="canary")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ("b/model\n" if after else "a/model\n")


@pytest.mark.parametrize("argv", [["--reapply", "a.json", "--remote", "o"], ["--remote", "o", "a.json"]],
                         ids=["marked", "argument"])
def test_the_flag_only_marks_the_one_results_file(argv: list[str]) -> None:
    # summary's and issues sync's --results alike: one results file per round
    commit = canary.commands["commit"]
    assert commit.make_context("commit", list(argv)).params["results_path"] == Path("a.json")  # (click pops it)
    with pytest.raises(click.UsageError, match="unexpected extra argument"):
        commit.make_context("commit", [*argv, "b.json"])


def test_python_dash_m_canary_runs_the_same_shell() -> None:
    done = subprocess.run([sys.executable, "-m", "canary", "judge", "--bogus"], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 2 and "No such option '--bogus'" in done.stderr
    done = subprocess.run([sys.executable, "-m", "canary", "--help"], capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 0 and "fetch-state" in done.stdout
