"""The workflow's wiring of notifications, the heartbeat and incident issues (issue 12.4-12.6).

What each promises: the notification URLs reach only the step that announces committed
decisions; the heartbeat runs after every judged round, also when a step failed, and its URL
reaches it only through env; the issues job is the only one that may write issues, with no
other write permission, no environment and no secret, and works from the committed round.
"""

from __future__ import annotations

from typing import Any

from workflow_support import CANARY, load, run_index, steps

SECRET_ENVS = ("CANARY_NOTIFY_URLS", "CANARY_WEBHOOK_URL", "CANARY_HEARTBEAT_URL", "CANARY_HEARTBEAT_FAIL_URL")


def envs_with(doc: dict[str, Any], variable: str) -> list[str]:
    """Where `variable` is set: 'workflow', '<job>' or '<job>: <step name or script>'."""
    found = ["workflow"] if variable in doc.get("env", {}) else []
    for name, job in doc["jobs"].items():
        if variable in job.get("env", {}):
            found.append(name)
        found += [f"{name}: {s.get('name', s.get('run', s.get('uses')))}" for s in job.get("steps", [])
                  if variable in s.get("env", {})]
    return found


def test_the_notification_urls_reach_only_the_step_announcing_committed_decisions():
    doc = load(CANARY)
    assert envs_with(doc, "CANARY_NOTIFY_URLS") == ["judge: canary announce"]
    judge = doc["jobs"]["judge"]
    announce = judge["steps"][run_index(judge, "canary announce")]
    assert announce["env"]["CANARY_NOTIFY_URLS"] == "${{ secrets.CANARY_NOTIFY_URLS }}"
    assert run_index(judge, "canary commit --message-from") < run_index(judge, "canary announce")
    assert "--no-notify" in judge["steps"][run_index(judge, "canary judge")]["run"]  # the judge itself sends nothing


def test_the_digest_goes_out_from_the_announce_step_and_its_record_is_committed():
    judge = load(CANARY)["jobs"]["judge"]
    announce = run_index(judge, "canary announce")
    assert run_index(judge, "canary digest") == announce   # no other step gets the URLs, no extra job
    script = judge["steps"][announce]["run"]
    assert script.index("canary announce") < script.index("canary digest") and "canary digest ||" in script
    follow_up = judge["steps"][announce + 1]
    assert "steps.announce.outputs.recorded == 'true'" in follow_up["if"] and "--reapply" in follow_up["run"]


def test_the_heartbeat_follows_every_judged_round_even_a_failed_one_and_gets_its_url_only_through_env():
    doc = load(CANARY)
    judge = doc["jobs"]["judge"]
    at = run_index(judge, "canary heartbeat")
    step = judge["steps"][at]
    assert step["if"] == "${{ !cancelled() }}"  # a failed judge or commit still pings (the failure URL)
    assert at == len(judge["steps"]) - 1 and at > run_index(judge, "canary commit --message-from")
    assert step["env"]["CANARY_HEARTBEAT_URL"] == "${{ secrets.CANARY_HEARTBEAT_URL }}"
    assert step["env"]["CANARY_HEARTBEAT_FAIL_URL"] == "${{ secrets.CANARY_HEARTBEAT_FAIL_URL }}"
    assert step["env"]["JOB_STATUS"] == "${{ job.status }}" and "--fail" in step["run"]
    assert "--decisions reports/decisions.json" in step["run"]
    for variable in ("CANARY_HEARTBEAT_URL", "CANARY_HEARTBEAT_FAIL_URL"):
        assert envs_with(doc, variable) == ["judge: canary heartbeat"]
    assert "HEARTBEAT" not in step["run"]  # the URL is read by canary from env, never on a command line


def test_the_issues_job_alone_may_write_issues_with_contents_read_only_for_its_checkout():
    jobs = load(CANARY)["jobs"]
    assert jobs["issues"]["permissions"] == {"contents": "read", "issues": "write"}
    assert [name for name, job in jobs.items() if "issues" in job.get("permissions", {})] == ["issues"]
    checkout = next(s for s in jobs["issues"]["steps"] if s.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"]["persist-credentials"] is False


def test_the_issues_job_has_no_environment_and_no_secret_but_the_workflow_token():
    job = load(CANARY)["jobs"]["issues"]
    assert "environment" not in job
    assert "secrets." not in str(job)
    sync = job["steps"][run_index(job, "canary issues sync")]
    assert sync["env"] == {"GITHUB_TOKEN": "${{ github.token }}"}
    assert not any(v in str(job) for v in SECRET_ENVS)


def test_the_issues_job_works_from_the_committed_round_and_holds_up_nothing():
    doc = load(CANARY)
    jobs = doc["jobs"]
    job = jobs["issues"]
    assert job["needs"] == "judge" and "needs.judge.result == 'success'" in job["if"]
    assert not any("issues" in ([j["needs"]] if isinstance(j.get("needs"), str) else j.get("needs", []))
                   for j in jobs.values())  # a GitHub API outage never holds up a round
    downloads = {s["with"].get("name") or s["with"].get("pattern"): s for s in job["steps"]
                 if s.get("uses", "").startswith("actions/download-artifact@")}
    assert set(downloads) == {"decisions", "judge-state", "round"}
    judge = jobs["judge"]
    committed = run_index(judge, "canary commit --message-from")
    uploads = {s["with"]["name"]: i for i, s in enumerate(judge["steps"])
               if s.get("uses", "").startswith("actions/upload-artifact@")}
    assert uploads["decisions"] > committed and uploads["judge-state"] > committed  # what was committed
    for name in ("decisions", "judge-state"):
        step = judge["steps"][uploads[name]]  # skipped when the round's commit failed, not after a later step
        assert step["if"] == f"${{{{ !cancelled() && steps.{judge['steps'][committed]['id']}.outcome == 'success' }}}}"
    sync = job["steps"][run_index(job, "canary issues sync")]["run"]
    assert downloads["decisions"]["with"]["path"] + "/decisions.json" in sync
    folder = downloads["judge-state"]["with"]["path"]
    assert f"--state {folder}/canary-state.json --audit {folder}/audit.jsonl" in sync
    assert judge["steps"][uploads["judge-state"]]["with"]["path"].split() == ["state/canary-state.json",
                                                                             "state/audit.jsonl"]


def test_every_secret_of_the_canary_environment_is_read_only_where_it_is_needed():
    doc = load(CANARY)
    read = {name: sorted({key for _, step in steps(doc) for key, value in step.get("env", {}).items()
                          if f"secrets.{name}" in str(value)}) for name in (*SECRET_ENVS, "OPENROUTER_API_KEY")}
    assert read == {name: [name] for name in read}  # each secret under its own name, nowhere renamed
    assert envs_with(doc, "OPENROUTER_API_KEY") == ["probe: canary probe --model"]
