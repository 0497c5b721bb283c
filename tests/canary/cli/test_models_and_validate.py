"""`canary models` (the workflow's matrix) and `canary validate` (the pull-request check)."""

from __future__ import annotations

import json

import pytest

from canary.cli.commands.models import slug
from canary.cli.main import main

TWO_MODELS = "models:\n  - deepseek/deepseek-chat-v3-0324\n  - meta-llama/llama-3.3-70b-instruct\n"


@pytest.fixture
def config(tmp_path):
    path = tmp_path / "canary.yaml"
    path.write_text(TWO_MODELS)
    return path


MODELS = ["deepseek/deepseek-chat-v3-0324", "meta-llama/llama-3.3-70b-instruct"]


def test_by_default_one_probe_job_probes_every_model_with_the_whole_caps(config, capsys):
    """Issue 29: a job per model multiplied the key's budget (M x overall) and a host's (k x per_provider)."""
    assert main(["--config", str(config), "models", "--json"]) == 0
    [job] = json.loads(capsys.readouterr().out)
    assert job == {"models": ",".join(MODELS), "slug": "models", "shares": 1}


@pytest.mark.parametrize("jobs", [2, 5])
def test_split_jobs_share_the_caps_and_cover_every_model_once(config, capsys, jobs):
    assert main(["--config", str(config), "models", "--json", "--jobs", str(jobs)]) == 0
    matrix = json.loads(capsys.readouterr().out)
    assert len(matrix) == 2 and {m["shares"] for m in matrix} == {2}  # never more jobs than models
    assert sorted(x for m in matrix for x in m["models"].split(",")) == MODELS
    assert len({m["slug"] for m in matrix}) == 2 and all("/" not in m["slug"] and ":" not in m["slug"] for m in matrix)


def test_a_manual_run_can_select_some_models(config, capsys):
    assert main(["--config", str(config), "models", "--json", "--select", "meta-llama/llama-3.3-70b-instruct"]) == 0
    assert [m["models"] for m in json.loads(capsys.readouterr().out)] == ["meta-llama/llama-3.3-70b-instruct"]


def test_selecting_an_unconfigured_model_is_refused(config, capsys):
    assert main(["--config", str(config), "models", "--select", "nope/nothing"]) == 2
    assert "not configured" in capsys.readouterr().err


def test_no_models_is_refused_rather_than_an_empty_matrix(tmp_path, capsys):
    (tmp_path / "c.yaml").write_text("models: []\n")
    assert main(["--config", str(tmp_path / "c.yaml"), "models", "--json"]) == 2


@pytest.mark.parametrize(("model", "expected"), [("a/b", "a--b"), ("a/b:free", "a--b--free")], ids=["slash", "colon"])
def test_slugs_keep_model_ids_apart(model, expected):
    assert slug(model) == expected


def files(tmp_path, builtin: str, incidents: str) -> list[str]:
    (tmp_path / "builtin.yaml").write_text(builtin)
    (tmp_path / "incidents.yaml").write_text(incidents)
    return ["--builtin", str(tmp_path / "builtin.yaml"), "--incidents", str(tmp_path / "incidents.yaml"),
            "--state", str(tmp_path / "state.json"), "--audit", str(tmp_path / "audit.jsonl")]


GOOD_LINE = json.dumps({"time": "2026-12-01T00:00:00Z", "round_id": "r1", "mode": "observe", "action": "suspend",
                        "model": "deepseek/deepseek-chat-v3-0324", "provider": "aurora/fp8", "reason": "x"})


def test_validate_parses_the_audit_log_and_names_each_bad_line(tmp_path, config, capsys):
    # Issue 31: the audit log was never looked at; a bad line surfaced only in a later command.
    args = ["--config", str(config), "validate", *files(tmp_path, "", "")]
    audit = tmp_path / "audit.jsonl"
    audit.write_text(GOOD_LINE + "\n")
    assert main(args) == 0 and "audit.jsonl: every line a record" in capsys.readouterr().out
    audit.write_text("\n".join([GOOD_LINE, "[1, 2]", json.dumps({"time": "yesterday", "action": "suspend"}),
                                json.dumps({"time": "2026-12-01T00:00:00Z"}), GOOD_LINE, '{"time": "2026-12-0']))
    assert main(args) == 1
    said = capsys.readouterr()
    assert "audit.jsonl:2: not a JSON object" in said.err and "audit.jsonl:3: `time`" in said.err
    assert "audit.jsonl:4: no `action`" in said.err and ":5:" not in said.err
    assert "audit.jsonl:6: the last line is cut short" in said.out   # a torn append is a note, not a failure


def test_validate_fails_on_an_audit_log_that_is_a_symbolic_link(tmp_path, config, capsys):
    args = ["--config", str(config), "validate", *files(tmp_path, "", "")]
    (tmp_path / "elsewhere").write_text(GOOD_LINE + "\n")
    (tmp_path / "audit.jsonl").symlink_to(tmp_path / "elsewhere")
    assert main(args) == 1 and "symbolic link" in capsys.readouterr().err


def test_valid_files_pass(tmp_path, config, capsys):
    builtin = ('"deepseek/deepseek-chat-v3-0324":\n  - provider: "aurora/fp8"\n'
               '    reason: "stray punctuation"  # measured\n')
    rc = main(["--config", str(config), "validate", *files(tmp_path, builtin, "")])
    assert rc == 0, capsys.readouterr().err
    assert "1 entry" in capsys.readouterr().out


def test_a_broken_hand_edit_fails_with_its_file_and_line(tmp_path, config, capsys):
    incidents = '"deepseek/deepseek-chat-v3-0324":\n  - provider: "aurora/fp8"\n    reason: "x"\n'  # no added_at
    rc = main(["--config", str(config), "validate", *files(tmp_path, "", incidents)])
    err = capsys.readouterr().err
    assert rc == 1
    assert "incidents.yaml: line 2" in err and "added_at" in err


def test_broken_yaml_fails(tmp_path, config, capsys):
    rc = main(["--config", str(config), "validate", *files(tmp_path, "a: [unclosed\n", "")])
    assert rc == 1 and "not valid YAML" in capsys.readouterr().err


# -- positive controls against the last saved discovery ----------------------------------------

MODEL = "deepseek/deepseek-chat-v3-0324"


def snapshot(path, upstream: str, tags: list[str]):
    path.write_text(json.dumps({"schema_version": 1, "upstream": upstream, "taken_at": "2026-11-29T22:30:00Z",
                                "plan": {"models": {MODEL: {"endpoints": [{"tag": t} for t in tags]}}}}))
    return path


def validate_controls(tmp_path, capsys, controls: list[str], *extra: str) -> tuple[int, str]:
    config = tmp_path / "canary.yaml"
    config.write_text(f"models: [{MODEL}]\ncontrols:\n  {MODEL}: {json.dumps(controls)}\n"
                      f"paths:\n  reports: {tmp_path / 'reports'}\n")
    rc = main(["--config", str(config), "validate", *files(tmp_path, "", ""), *extra])
    return rc, capsys.readouterr().out


def test_validate_warns_about_a_control_the_saved_discovery_does_not_list(tmp_path, capsys):
    saved = snapshot(tmp_path / "discovery.json", "openrouter", ["deepinfra/fp8", "novita/fp8"])
    rc, out = validate_controls(tmp_path, capsys, ["ember/fp8", "novita/fp8"], "--discovery", str(saved))
    assert rc == 0  # a warning, not a broken file
    [warning] = [line for line in out.splitlines() if line.startswith("warn")]
    assert "controls.deepseek/deepseek-chat-v3-0324: ember/fp8 is not among the 2 endpoints" in warning
    assert "never probed" in warning and "novita/fp8" not in warning


def test_validate_reads_the_snapshot_a_round_saved_by_default(tmp_path, capsys):
    (tmp_path / "reports").mkdir()
    snapshot(tmp_path / "reports" / "discovery.json", "openrouter", ["deepinfra/fp8"])
    _, out = validate_controls(tmp_path, capsys, ["ember/fp8"])
    assert "warn" in out and "ember/fp8" in out


def test_validate_says_when_it_cannot_check_the_controls(tmp_path, capsys):
    _, out = validate_controls(tmp_path, capsys, ["ember/fp8"])
    assert "note" in out and "controls not checked: no readable discovery snapshot" in out
    simulated = snapshot(tmp_path / "sim.json", "simulator", ["aurora/fp8"])
    _, out = validate_controls(tmp_path, capsys, ["ember/fp8"], "--discovery", str(simulated))
    assert "comes from a simulator" in out and "warn" not in out


def test_validate_is_quiet_about_controls_when_none_are_configured(tmp_path, capsys):
    config = tmp_path / "c.yaml"
    config.write_text(f"models: [{MODEL}]\n")
    rc = main(["--config", str(config), "validate", *files(tmp_path, "", "")])
    out = capsys.readouterr().out
    assert rc == 0 and "controls" not in out
