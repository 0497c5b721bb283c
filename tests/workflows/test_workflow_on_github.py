"""The workflow's scripts run over what GitHub would give them (tests/workflows/github_runner.py).

Structure and lint are checked in test_workflows.py; here the probe job's own script writes the
round's results, upload-artifact stores them as v7.0.0 does, download-artifact v8.0.1 lays them
out in the judge, issues and report jobs (flat when one artifact matches, one folder per artifact
when several do), and those jobs' own scripts run with a recording `canary` on PATH: what reaches
`canary judge` is what would reach it on GitHub. The `if:` of jobs and steps are evaluated over
the values GitHub sets (job results, job outputs set by a step before a later one failed, a
re-run's artifacts of earlier attempts).
"""

from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "canary"))  # the judge's file helpers

from github_runner import (
    Contexts,
    JobRun,
    Run,
    condition,
    fake_canary,
    run_job,
    run_step,
)
from judge_cli_support import HALF_HOUR, MODEL, T0, Files, files_in, iso, results
from workflow_support import JOBS, probe_job, run_index


def test_the_probe_job_probes_every_planned_model_in_one_round(tmp_path):
    job = JOBS["probe"]
    contexts = Contexts({"inputs": {"providers": ""}, "secrets": {},
                         "needs": {"plan": {"outputs": {"models": "aurora/one,borealis/two"}}}})
    step = job["steps"][run_index(job, "canary probe")]
    done = run_step(step, tmp_path, contexts, bin_dir=tmp_path / "bin")
    assert done.code == 0, done.stderr
    [call] = done.calls
    assert call == ["probe", "--model", "aurora/one", "--model", "borealis/two", "--reports", "round"]


def downloads_of(job: dict[str, Any], run: Run, workspace: Path, *, decisions: bool = True) -> None:
    """Every download-artifact step of `job` that would run, as download-artifact lays it out."""
    for step in job["steps"]:
        if not step.get("uses", "").startswith("actions/download-artifact@"):
            continue
        if step["with"].get("name") in ("decisions", "judge-state") and not decisions:
            continue
        try:
            run.download(workspace, step["with"])
        except Exception:
            if not step.get("continue-on-error"):
                raise


def calls_of(job_name: str, command: str, run: Run, workspace: Path, contexts: Contexts | None = None) -> list[str]:
    """The arguments `canary <command>` gets in `job_name`'s step that runs it (in a fresh `workspace`)."""
    job = JOBS[job_name]
    workspace.mkdir()
    downloads_of(job, run, workspace)
    (workspace / "reports").mkdir(exist_ok=True)
    (workspace / "reports/decisions.json").write_text("{}")
    step = job["steps"][run_index(job, f"canary {command}")]
    done = run_step(step, workspace, contexts or Contexts({"inputs": {}, "needs": {}}),
                    bin_dir=workspace.parent / "bin")
    assert done.code == 0, done.stderr
    (call,) = [c for c in done.calls if c[:len(command.split())] == command.split()]
    return call


def rounds_given(call: list[str], workspace: Path) -> set[str]:
    """The round ids of the results files on a command line (paths relative to the job's workspace)."""
    files = [a for a in call if a.endswith("results.json")]
    return {json.loads((workspace / f).read_text())["round_id"] for f in files}


def test_the_rounds_results_reach_the_judge_issues_and_report(tmp_path):
    """download-artifact unpacks the one `round` artifact flat into `path` (v5+)."""
    run = Run()
    probe_job(run, tmp_path, "aurora/one", "round-0")
    run.store("decisions", {"decisions.json": b"{}"})  # the judge job's upload, read by issues and report
    plan = Contexts({"inputs": {"mode": "from-config"}, "needs": {"plan": {"outputs": {"models": ""}}}})
    for job, command, where in (("judge", "judge", "judge"), ("judge", "commit --message-from", "commit"),
                                ("issues", "issues sync", "issues"), ("report", "summary", "summary")):
        call = calls_of(job, command, run, tmp_path / where, plan)
        assert rounds_given(call, tmp_path / where) == {"round-0"}, f"{job}: canary {command} {call}"
    report = calls_of("report", "report", run, tmp_path / "report")
    dirs = report[report.index("--results-dir") + 1:report.index("--history-dir")]
    assert dirs == ["round/allure-results"] and (tmp_path / "report/round/allure-results/x-result.json").is_file()


def test_without_results_the_judge_still_runs_and_the_report_says_so(tmp_path):
    """A probe that left nothing: the judge gets no results file (and refuses the round, naming the
    missing models); the report's guard fails with its own message."""
    call = calls_of("judge", "judge", Run(), tmp_path / "judge",
                    Contexts({"inputs": {}, "needs": {"plan": {"outputs": {"models": MODEL}}}}))
    assert not [a for a in call if a.endswith("results.json")] and call[call.index("--expect-models") + 1] == MODEL
    run = Run()
    probe_job(run, tmp_path, "aurora/one", "round-0")
    job = JOBS["report"]
    guard = job["steps"][run_index(job, "[ ! -f round/results.json ]")]
    for workspace, given, code in ((tmp_path / "report", run, 0), (tmp_path / "empty", Run(), 1)):
        workspace.mkdir()
        downloads_of(job, given, workspace)
        assert run_step(guard, workspace, Contexts({}), bin_dir=tmp_path / "bin").code == code
    assert condition(guard.get("if"), Contexts({})) is True


def test_a_rerun_of_the_failed_probe_judges_its_new_round_and_reports_its_own_decisions(tmp_path):
    """Attempt 1's probe job failed (an incomplete round, committed); "Re-run failed jobs" probes
    again: the judge gets attempt 2's results only (download-artifact: the latest of each name) and
    judges them as a new round; a report whose judge failed reads no decisions (not attempt 1's)."""
    (tmp_path / "files").mkdir()
    f = files_in(tmp_path / "files")
    run = Run()
    probe_job(run, tmp_path, MODEL, "r1", results(at=T0, round_id="r1", complete=False))
    plan = Contexts({"inputs": {}, "needs": {"plan": {"outputs": {"models": MODEL}}}})
    first = calls_of("judge", "judge", run, tmp_path / "judge-1", plan)
    assert real_judge(f, first, tmp_path / "judge-1", T0 + HALF_HOUR / 3) == 0
    run.store("decisions", {"decisions.json": f.decisions.read_bytes()})
    run.attempt = 2
    probe_job(run, tmp_path, MODEL, "r2", results(at=T0 + HALF_HOUR / 2, round_id="r2"))
    second = calls_of("judge", "judge", run, tmp_path / "judge-2", plan)
    assert rounds_given(second, tmp_path / "judge-2") == {"r2"}
    assert real_judge(f, second, tmp_path / "judge-2", T0 + HALF_HOUR * 2 / 3) == 0
    assert json.loads(f.decisions.read_text())["round_id"] == "r2"
    report = JOBS["report"]
    [download] = [s for s in report["steps"] if s.get("with", {}).get("name") == "decisions"]
    for judged, reads in (("success", True), ("failure", False), ("skipped", False)):
        contexts = Contexts({"needs": {"judge": {"result": judged}}})
        assert condition(download.get("if"), contexts) is reads, judged


def real_judge(f: Files, call: list[str], workspace: Path, now: datetime) -> int:
    """The judge step's command line, run by the real `canary judge` (from the job's workspace)."""
    given = [str(workspace / a) for a in call if a.endswith("results.json")]
    at = call.index("--expect-models")
    code, _, _ = f.canary("judge", *given, "--expect-models", call[at + 1] or MODEL,
                          "--now", iso(now), "--no-notify")
    return code


FAKE_GH = """#!/bin/sh
# `gh api repos/OWNER/REPO/pages --jq ...`: Pages is on, with source GitHub Actions.
printf 'workflow\\thttps://owner.github.io/repo/\\n'
"""


def report_job(tmp_path: Path, *, state_checkout: str = "success", site_exit: int = 0, judge: str = "success",
               state_branch_exists: str = "true", pages_variable: str = "true",
               queued_incidents: bytes | None = None) -> JobRun:
    """The report job run as the runner would: results present, Pages on (source GitHub Actions) and
    opted in (the CANARY_PAGES repository variable), the state branch there."""
    run = Run()
    probe_job(run, tmp_path, MODEL, "r1")
    run.store("decisions", {"decisions.json": b"{}"})
    bin_dir = tmp_path / "bin"
    fake_canary(bin_dir)
    (bin_dir / "gh").write_text(FAKE_GH)
    (bin_dir / "gh").chmod(0o755)

    run.store("judge-exclusions", {"builtin.yaml": b"# reviewed\n", "incidents.yaml": JUDGED_INCIDENTS})

    def checkout(step: dict[str, Any], workspace: Path, contexts: Contexts) -> str:
        if step["with"].get("ref") == "canary-state":
            return state_checkout  # a transient fetch failure is "failure" here
        if queued_incidents is not None:  # the commit the run was queued on
            (workspace / "exclusions").mkdir(parents=True, exist_ok=True)
            (workspace / "exclusions/incidents.yaml").write_bytes(queued_incidents)
        return "success"

    values = {"inputs": {}, "vars": {"CANARY_PAGES": pages_variable} if pages_variable else {},
              "needs": {"plan": {"result": "success", "outputs": {"state_branch": "canary-state"}},
                        "judge": {"result": judge}}}
    return run_job(JOBS["report"], tmp_path / "report", values, bin_dir=bin_dir, run=run,
                   actions={"actions/checkout": checkout},
                   extra_env={"FAKE_EXIT_SITE": str(site_exit), "FAKE_STDOUT_FETCH_STATE": state_branch_exists})


JUDGED_INCIDENTS = b'"m/x":\n  - provider: cinder/fp8\n    reason: added on main while the run was queued\n'


@pytest.mark.parametrize("judge", ["success", "failure"])
def test_the_status_page_is_built_from_the_exclusions_the_judge_used_not_those_queued(tmp_path, judge):
    """Issue 29: the report job's checkout is the commit the run was queued on; main may have moved
    an exclusion file since, and the judge (and its commit's re-apply) used main's tip."""
    report = report_job(tmp_path, judge=judge, queued_incidents=b"# as queued\n")
    assert [c for c in report.calls if c[:1] == ["site"]]
    used = (tmp_path / "report" / "exclusions/incidents.yaml").read_bytes()
    assert used == (JUDGED_INCIDENTS if judge == "success" else b"# as queued\n")  # never an earlier attempt's


def pages_runs(report: JobRun) -> bool:
    return condition(JOBS["pages"]["if"], Contexts({"needs": {"report": report.needs()}}))


def test_a_failed_checkout_of_the_state_branch_fails_the_report_and_deploys_nothing(tmp_path):
    """A transient fetch failure is not the absent branch: no page is built from an empty history."""
    report = report_job(tmp_path, state_checkout="failure")
    assert report.result == "failure"
    assert not [c for c in report.calls if c[:1] == ["site"]] and not pages_runs(report)


def test_without_a_state_branch_yet_the_report_builds_the_first_page(tmp_path):
    report = report_job(tmp_path, state_branch_exists="false")
    assert report.result == "success", report.ran
    assert "the judge's state and round history, from their branch" not in report.ran
    [site] = [c for c in report.calls if c[:1] == ["site"]]
    assert "--state-checkout" in site and pages_runs(report)  # the page then says there is no round yet


def test_pages_deploys_only_after_a_successful_report_although_its_outputs_are_set_anyway(tmp_path):
    """The Pages question is answered (publish=true) before `canary site` fails: job outputs are set
    whatever the job's result, so `publish == 'true'` alone would deploy a missing site."""
    failed = report_job(tmp_path / "failed", site_exit=1)
    assert failed.result == "failure" and failed.outputs["publish"] == "true"
    assert not pages_runs(failed)
    good = report_job(tmp_path / "good")
    assert good.result == "success" and good.outputs["publish"] == "true" and pages_runs(good)


@pytest.mark.parametrize("variable", ["", "false", "yes"])
def test_pages_source_github_actions_alone_publishes_nothing_without_the_repository_variable(tmp_path, variable):
    """Issue 29: a repository that already publishes its own site through Actions must not have it
    replaced by the status page; only CANARY_PAGES=true opts in."""
    report = report_job(tmp_path, pages_variable=variable)
    assert report.result == "success" and report.outputs["publish"] == "false" and not pages_runs(report)
    assert [c for c in report.calls if c[:1] == ["site"]]  # the page is still built (and kept as an artifact)


def judge_job(tmp_path: Path, **exits: int) -> tuple[JobRun, Run]:
    """The judge job as the runner runs it, each `canary` command exiting as `exits` says."""
    run = Run()
    probe_job(run, tmp_path, MODEL, "r1")
    bin_dir = tmp_path / "bin"
    values = {"inputs": {}, "secrets": {}, "github": {"ref": "refs/heads/main"},
              "needs": {"plan": {"result": "success", "outputs": {"models": MODEL}}}}
    env = {f"FAKE_EXIT_{name.upper()}": str(code) for name, code in exits.items()}
    workspace = tmp_path / "judge"
    for written in ("reports/decisions.json", "state/canary-state.json"):  # what the judge would write
        (workspace / written).parent.mkdir(parents=True, exist_ok=True)
        (workspace / written).write_text("{}")
    return run_job(JOBS["judge"], workspace, values, bin_dir=bin_dir, run=run, extra_env=env), run


def test_the_decisions_and_state_are_uploaded_after_a_committed_round_whatever_the_announcement_did(tmp_path):
    """The round was committed; a failed announcement (or its follow-up commit) must not keep the
    issues and report jobs from its decisions."""
    job, run = judge_job(tmp_path / "announce-failed", announce=1)
    assert job.result == "failure" and {"decisions", "judge-state"} <= set(run.latest())
    job, run = judge_job(tmp_path / "commit-failed", commit=1)
    assert job.result == "failure" and not {"decisions", "judge-state"} & set(run.latest())
