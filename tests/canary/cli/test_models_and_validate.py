"""`canary models` (the workflow's plan) and `canary validate` (the pull-request check)."""

from __future__ import annotations

import json

import msgspec
import pytest
from click.testing import CliRunner, Result

from canary.cli.main import canary
from probes.http.records import Endpoint
from probes.round.planning import DiscoveryFile, RoundPlan


def run(args: list[str]) -> Result:
    """`canary ARGS` through click's CliRunner: exit code, stdout and stderr apart."""
    return CliRunner().invoke(canary, args, prog_name="canary")

TWO_MODELS = "models:\n  - deepseek/deepseek-chat-v3-0324\n  - meta-llama/llama-3.3-70b-instruct\n"


@pytest.fixture
def config(tmp_path):
    path = tmp_path / "canary.yaml"
    path.write_text(TWO_MODELS)
    return path


MODELS = ["deepseek/deepseek-chat-v3-0324", "meta-llama/llama-3.3-70b-instruct"]


def test_models_are_listed_one_a_line_and_a_manual_run_can_select_some(config):
    assert run(["--config", str(config), "models"]).stdout.splitlines() == MODELS
    result = run(["--config", str(config), "models", "--select", "meta-llama/llama-3.3-70b-instruct"])
    assert result.exit_code == 0 and result.stdout == "meta-llama/llama-3.3-70b-instruct\n"


def test_selecting_an_unconfigured_model_is_refused(config):
    result = run(["--config", str(config), "models", "--select", "nope/nothing"])
    assert result.exit_code == 2
    assert "not configured" in result.stderr


def test_no_models_is_refused_rather_than_an_empty_plan(tmp_path):
    (tmp_path / "c.yaml").write_text("models: []\n")
    assert run(["--config", str(tmp_path / "c.yaml"), "models"]).exit_code == 2


def files(tmp_path, builtin: str, incidents: str) -> list[str]:
    (tmp_path / "builtin.yaml").write_text(builtin)
    (tmp_path / "incidents.yaml").write_text(incidents)
    return ["--builtin", str(tmp_path / "builtin.yaml"), "--incidents", str(tmp_path / "incidents.yaml"),
            "--state", str(tmp_path / "state.json"), "--audit", str(tmp_path / "audit.jsonl")]


GOOD_LINE = json.dumps({"time": "2026-12-01T00:00:00Z", "round_id": "r1", "mode": "observe", "action": "suspend",
                        "model": "deepseek/deepseek-chat-v3-0324", "provider": "aurora/fp8", "reason": "x"})


def test_validate_parses_the_audit_log_and_names_each_bad_line(tmp_path, config):
    # Issue 31: the audit log was never looked at; a bad line surfaced only in a later command.
    args = ["--config", str(config), "validate", *files(tmp_path, "", "")]
    audit = tmp_path / "audit.jsonl"
    audit.write_text(GOOD_LINE + "\n")
    result = run(args)
    assert result.exit_code == 0 and "audit.jsonl: every line a record" in result.stdout
    audit.write_text("\n".join([GOOD_LINE, "[1, 2]", json.dumps({"time": "yesterday", "action": "suspend"}),
                                json.dumps({"time": "2026-12-01T00:00:00Z"}), GOOD_LINE, '{"time": "2026-12-0']))
    said = run(args)
    assert said.exit_code == 1
    assert "audit.jsonl:2: not a JSON object" in said.stderr
    assert "audit.jsonl:3: time: expected an ISO 8601 time" in said.stderr
    assert "audit.jsonl:4: action: required key is missing" in said.stderr and ":5:" not in said.stderr
    assert "audit.jsonl:6: the last line is cut short" in said.stdout   # a torn append is a note, not a failure


def test_validate_fails_on_an_audit_log_that_is_a_symbolic_link(tmp_path, config):
    args = ["--config", str(config), "validate", *files(tmp_path, "", "")]
    (tmp_path / "elsewhere").write_text(GOOD_LINE + "\n")
    (tmp_path / "audit.jsonl").symlink_to(tmp_path / "elsewhere")
    result = run(args)
    assert result.exit_code == 1 and "symbolic link" in result.stderr


def test_valid_files_pass(tmp_path, config):
    builtin = ('"deepseek/deepseek-chat-v3-0324":\n  - provider: "aurora/fp8"\n'
               '    reason: "stray punctuation"  # measured\n')
    result = run(["--config", str(config), "validate", *files(tmp_path, builtin, "")])
    assert result.exit_code == 0, result.stderr
    assert "1 entry" in result.stdout


def test_a_broken_hand_edit_fails_with_its_file_and_line(tmp_path, config):
    incidents = '"deepseek/deepseek-chat-v3-0324":\n  - provider: "aurora/fp8"\n    reason: "x"\n'  # no added_at
    result = run(["--config", str(config), "validate", *files(tmp_path, "", incidents)])
    err = result.stderr
    assert result.exit_code == 1
    assert "incidents.yaml: line 2" in err and "added_at" in err


def test_broken_yaml_fails(tmp_path, config):
    result = run(["--config", str(config), "validate", *files(tmp_path, "a: [unclosed\n", "")])
    assert result.exit_code == 1 and "not valid YAML" in result.stderr


# -- positive controls against the last saved discovery ----------------------------------------

MODEL = "deepseek/deepseek-chat-v3-0324"


def snapshot(path, upstream: str, tags: list[str]):
    """A discovery.json as a round writes it (probes/round/planning.py's declaration)."""
    endpoints = tuple(Endpoint(model=MODEL, provider=t, provider_name=t, quantization="fp8",
                               supported_parameters=("max_tokens",), prompt_price=0.0, completion_price=0.0,
                               context_length=None, max_completion_tokens=None, status=0) for t in tags)
    doc = DiscoveryFile(upstream=upstream, taken_at="2026-11-29T22:30:00Z",
                        plan=RoundPlan.of({MODEL: endpoints}))
    path.write_text(json.dumps(msgspec.to_builtins(doc)))
    return path


def validate_controls(tmp_path, controls: list[str], *extra: str) -> tuple[int, str]:
    config = tmp_path / "canary.yaml"
    config.write_text(f"models: [{MODEL}]\ncontrols:\n  {MODEL}: {json.dumps(controls)}\n"
                      f"paths:\n  reports: {tmp_path / 'reports'}\n")
    result = run(["--config", str(config), "validate", *files(tmp_path, "", ""), *extra])
    return result.exit_code, result.stdout


def test_validate_warns_about_a_control_the_saved_discovery_does_not_list(tmp_path):
    saved = snapshot(tmp_path / "discovery.json", "openrouter", ["deepinfra/fp8", "novita/fp8"])
    rc, out = validate_controls(tmp_path, ["ember/fp8", "novita/fp8"], "--discovery", str(saved))
    assert rc == 0  # a warning, not a broken file
    [warning] = [line for line in out.splitlines() if line.startswith("warn")]
    assert "controls.deepseek/deepseek-chat-v3-0324: ember/fp8 is not among the 2 endpoints" in warning
    assert "never probed" in warning and "novita/fp8" not in warning


def test_validate_reads_the_snapshot_a_round_saved_by_default(tmp_path):
    (tmp_path / "reports").mkdir()
    snapshot(tmp_path / "reports" / "discovery.json", "openrouter", ["deepinfra/fp8"])
    _, out = validate_controls(tmp_path, ["ember/fp8"])
    assert "warn" in out and "ember/fp8" in out


def test_validate_says_when_it_cannot_check_the_controls(tmp_path):
    _, out = validate_controls(tmp_path, ["ember/fp8"])
    assert "note" in out and "controls not checked: no readable discovery snapshot" in out
    simulated = snapshot(tmp_path / "sim.json", "simulator", ["aurora/fp8"])
    _, out = validate_controls(tmp_path, ["ember/fp8"], "--discovery", str(simulated))
    assert "comes from a simulator" in out and "warn" not in out


def test_validate_warns_about_an_exclusion_of_an_endpoint_no_discovery_listed(tmp_path):
    # Issue 38: an incident for `cindr/fp8` passed validate without a word; a warning names the closest tags.
    saved = snapshot(tmp_path / "discovery.json", "openrouter", ["cinder/fp8", "dune/int4", "ember/fp8"])
    incidents = (f'"{MODEL}":\n  - provider: "cindr/fp8"\n    reason: "x"\n    added_at: "2026-11-29T22:30:00Z"\n'
                 '  - provider: "dune/int4"\n    reason: "x"\n    added_at: "2026-11-29T22:30:00Z"\n')
    config = tmp_path / "c.yaml"
    config.write_text(f"models: [{MODEL}]\n")
    result = run(["--config", str(config), "validate", *files(tmp_path, "", incidents), "--discovery", str(saved)])
    assert result.exit_code == 0, result.stderr
    [warning] = [line for line in result.stdout.splitlines() if line.startswith("warn")]
    assert f"incidents.yaml: cindr/fp8 is not among the 3 endpoints of {MODEL} seen in {saved}" in warning
    assert "(closest: cinder/fp8, " in warning


def test_validate_is_quiet_about_controls_when_none_are_configured(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text(f"models: [{MODEL}]\n")
    result = run(["--config", str(config), "validate", *files(tmp_path, "", "")])
    rc, out = result.exit_code, result.stdout
    assert rc == 0 and "controls" not in out


def test_validate_notes_a_snapshot_of_another_shape_naming_the_key(tmp_path):
    broken = tmp_path / "old.json"
    broken.write_text(json.dumps({"plan": {"schema_version": 1, "models": {MODEL: {"endpoints": [{"tag": "a/b"}]}}}}))
    rc, out = validate_controls(tmp_path, ["ember/fp8"], "--discovery", str(broken))
    assert rc == 0 and "warn" not in out
    assert f"controls not checked: no readable discovery snapshot ({broken}: plan.models.{MODEL}.endpoints[0]" \
           ".model: required key is missing" in out
