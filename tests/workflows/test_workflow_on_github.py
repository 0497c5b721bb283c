"""The workflow's scripts run over what GitHub would give them (tests/workflows/github_runner.py).

Structure and lint are checked in test_workflows.py; here the probe job's own script writes its
shard, upload-artifact stores it as v7.0.0 does, download-artifact v8.0.1 lays it out in the
judge, issues and report jobs (flat when one artifact matches, one folder per artifact when
several do), and those jobs' own scripts run with a recording `canary` on PATH: what reaches
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

from github_runner import Contexts, Run, condition, run_step, substitute, upload
from judge_cli_support import HALF_HOUR, MODEL, T0, Files, files_in, iso, results
from test_workflows import CANARY, load, run_index

JOBS = load(CANARY)["jobs"]
OTHER = "other/model"
SHARD_PATTERN = "shard-*"


def slug(model: str) -> str:
    return model.replace("/", "--")


def probe_contexts(model: str) -> Contexts:
    return Contexts({"matrix": {"model": model, "slug": slug(model)}, "inputs": {}, "secrets": {},
                     "needs": {"plan": {"outputs": {"state_branch": "canary-state", "models": model}}}})


def probe_job(run: Run, tmp_path: Path, model: str, round_id: str, doc: dict[str, Any] | None = None) -> None:
    """One probe job: its `canary probe` script leaves the shard (`doc`), its upload step stores it."""
    job, contexts = JOBS["probe"], probe_contexts(model)
    workspace = tmp_path / f"probe-{slug(model)}-{run.attempt}"
    workspace.mkdir()
    shard = tmp_path / f"{round_id}.json"
    shard.write_text(json.dumps(doc or {"round_id": round_id, "models": {model: {"providers": []}}}))
    at = run_index(job, "canary probe")
    probed = run_step(job["steps"][at], workspace, contexts, bin_dir=tmp_path / "bin",
                      extra_env={"FAKE_SHARD": str(shard)})
    assert probed.code == 0, probed.stderr
    step = job["steps"][at + 1]
    assert step["uses"].startswith("actions/upload-artifact@")
    run.store(substitute(step["with"]["name"], contexts), upload(workspace, substitute(step["with"]["path"], contexts)))


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


def shards_given(call: list[str], workspace: Path) -> set[str]:
    """The round ids of the results files on a command line (paths relative to the job's workspace)."""
    files = [a for a in call if a.endswith("results.json")]
    return {json.loads((workspace / f).read_text())["round_id"] for f in files}


@pytest.mark.parametrize("models", [["aurora/one"], ["aurora/one", "borealis/two"],
                                    ["aurora/one", "borealis/two", "cirrus/three"]],
                         ids=["one model", "two models", "three models"])
def test_every_shard_reaches_the_judge_issues_and_report_whatever_the_number_of_models(tmp_path, models):
    """download-artifact unpacks a single matching artifact flat into `path` (v5+): with one
    model (canary.yaml as shipped) a layout that depends on the count gives the judge nothing."""
    run = Run()
    for n, model in enumerate(models):
        probe_job(run, tmp_path, model, f"round-{n}")
    expected = {f"round-{n}" for n in range(len(models))}
    run.store("decisions", {"decisions.json": b"{}"})  # the judge job's upload, read by issues and report
    plan = Contexts({"inputs": {"mode": "from-config"}, "needs": {"plan": {"outputs": {"models": ""}}}})
    for job, command, where in (("judge", "judge", "judge"), ("judge", "commit --message-from", "commit"),
                                ("issues", "issues sync", "issues"), ("report", "summary", "summary")):
        call = calls_of(job, command, run, tmp_path / where, plan)
        assert shards_given(call, tmp_path / where) == expected, f"{job}: canary {command} {call}"
    report = calls_of("report", "report", run, tmp_path / "report")
    dirs = report[report.index("--results-dir") + 1:report.index("--history-dir")]
    assert len(dirs) == len(models) and all((tmp_path / "report" / d / "x-result.json").is_file() for d in dirs)


def test_the_report_says_no_probe_left_results_only_when_none_did(tmp_path):
    run = Run()
    probe_job(run, tmp_path, "aurora/one", "round-0")
    job = JOBS["report"]
    workspace = tmp_path / "report"
    workspace.mkdir()
    downloads_of(job, run, workspace)
    guard = job["steps"][run_index(job, "shards/*/results.json")]
    assert run_step(guard, workspace, Contexts({}), bin_dir=tmp_path / "bin").code == 0
    empty = tmp_path / "empty"
    empty.mkdir()
    downloads_of(job, Run(), empty)
    assert run_step(guard, empty, Contexts({}), bin_dir=tmp_path / "bin").code == 1
    assert condition(guard.get("if"), Contexts({})) is True


def test_a_rerun_of_failed_jobs_after_a_committed_round_judges_the_new_shard_and_reports_its_own_decisions(tmp_path):
    """Attempt 1 probes both models and commits; OTHER's probe job failed and is re-run: the judge
    gets attempt 1's shard of MODEL and attempt 2's of OTHER (download-artifact: the latest of each
    name). The real judge judges the new shard as its own round; a report whose judge failed
    reads no decisions (not attempt 1's)."""
    (tmp_path / "files").mkdir()
    f = files_in(tmp_path / "files")
    run = Run()
    probe_job(run, tmp_path, MODEL, "r1-a", results(at=T0, round_id="r1-a"))
    probe_job(run, tmp_path, OTHER, "r1-b", results(at=T0, model=OTHER, round_id="r1-b", complete=False))
    plan = Contexts({"inputs": {}, "needs": {"plan": {"outputs": {"models": f"{MODEL},{OTHER}"}}}})
    first = calls_of("judge", "judge", run, tmp_path / "judge-1", plan)
    assert real_judge(f, first, tmp_path / "judge-1", T0 + HALF_HOUR / 3) == 0
    run.store("decisions", {"decisions.json": f.decisions.read_bytes()})
    run.attempt = 2
    probe_job(run, tmp_path, OTHER, "r2-b", results(at=T0 + HALF_HOUR / 2, model=OTHER, round_id="r2-b"))
    second = calls_of("judge", "judge", run, tmp_path / "judge-2", plan)
    assert shards_given(second, tmp_path / "judge-2") == {"r1-a", "r2-b"}
    assert real_judge(f, second, tmp_path / "judge-2", T0 + HALF_HOUR * 2 / 3) == 0
    assert json.loads(f.decisions.read_text())["round_id"] == "r2-b"
    report = JOBS["report"]
    [download] = [s for s in report["steps"] if s.get("with", {}).get("name") == "decisions"]
    for judged, reads in (("success", True), ("failure", False), ("skipped", False)):
        contexts = Contexts({"needs": {"judge": {"result": judged}}})
        assert condition(download.get("if"), contexts) is reads, judged


def real_judge(f: Files, call: list[str], workspace: Path, now: datetime) -> int:
    """The judge step's command line, run by the real `canary judge` (from the job's workspace)."""
    shards = [str(workspace / a) for a in call if a.endswith("results.json")]
    at = call.index("--expect-models")
    code, _, _ = f.canary("judge", *shards, "--expect-models", call[at + 1] or f"{MODEL},{OTHER}",
                          "--now", iso(now), "--no-notify")
    return code
