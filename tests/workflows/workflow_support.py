"""What the workflow tests share: the workflows read as documents, and one probe job run as GitHub would."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from github_runner import Contexts, Run, run_step, substitute, upload

REPO = Path(__file__).resolve().parents[2]
CANARY = REPO / ".github" / "workflows" / "canary.yml"


def load(path: Path) -> dict[str, Any]:
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    doc["on"] = doc.pop(True, doc.get("on"))  # YAML 1.1 reads the key `on` as True
    return doc


def steps(doc: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(name, step) for name, job in doc["jobs"].items() for step in job.get("steps", [])]


def run_index(job: dict[str, Any], command: str) -> int:
    """Position of the first step whose script runs `command`."""
    return next(i for i, step in enumerate(job["steps"]) if command in step.get("run", ""))


JOBS = load(CANARY)["jobs"]


def probe_job(run: Run, tmp_path: Path, model: str, round_id: str, doc: dict[str, Any] | None = None) -> None:
    """The probe job: its `canary probe` script leaves the round's results (`doc`), its upload step stores them."""
    job = JOBS["probe"]
    contexts = Contexts({"inputs": {}, "secrets": {},
                         "needs": {"plan": {"outputs": {"state_branch": "canary-state", "models": model}}}})
    workspace = tmp_path / f"probe-{run.attempt}"
    workspace.mkdir(parents=True)
    shard = tmp_path / f"{round_id}.json"
    shard.write_text(json.dumps(doc or {"round_id": round_id, "models": {model: {"providers": []}}}))
    at = run_index(job, "canary probe")
    probed = run_step(job["steps"][at], workspace, contexts, bin_dir=tmp_path / "bin",
                      extra_env={"FAKE_SHARD": str(shard)})
    assert probed.code == 0, probed.stderr
    step = job["steps"][at + 1]
    assert step["uses"].startswith("actions/upload-artifact@")
    run.store(substitute(step["with"]["name"], contexts), upload(workspace, substitute(step["with"]["path"], contexts)))
