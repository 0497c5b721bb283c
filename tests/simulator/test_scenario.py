"""Scenarios load, the default matches the project configuration, and bad values are named."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml
from simkit import MODEL, one_endpoint_scenario

from simulator import DEFAULT_SCENARIO, ScenarioError, load_scenario, scenario_from_dict

CANARY_YAML = Path(__file__).resolve().parents[2] / "canary.yaml"


def test_the_default_scenario_serves_the_configured_model_with_nine_fictional_hosts():
    scenario = load_scenario()
    configured = yaml.safe_load(CANARY_YAML.read_text(encoding="utf-8"))

    [model] = scenario.models
    assert model.id in configured["models"]
    assert [e.tag for e in model.endpoints] == [
        "aurora/fp8", "borealis/bf16", "cinder/fp8", "dune/int4", "ember/fp8",
        "fjord/fp16", "glacier/fp8", "harbor/bf16", "iris/fp8",
    ]  # fmt: skip
    # The scenario brings its own positive control; the real configuration names no fictional host.
    assert scenario.controls() == {model.id: ("ember/fp8",)}
    fictional = {e.tag for e in model.endpoints}
    assert not {tag for tags in (configured.get("controls") or {}).values() for tag in tags} & fictional


def test_a_scenario_without_a_marked_control_declares_none():
    assert load_scenario("healthy").controls() == {}


def test_positive_control_must_be_true_or_false():
    data = one_endpoint_scenario()
    data["models"][0]["endpoints"][0]["positive_control"] = "yes"
    with pytest.raises(ScenarioError, match=r"endpoints\[0\]\.positive_control: expected true or false"):
        scenario_from_dict(data, source="bad.yaml")


def test_the_default_scenario_gives_each_host_its_story():
    by_tag = {e.tag: e for e in load_scenario().models[0].endpoints}
    faults = {tag: {f.name: f for f in e.behaviour.faults} for tag, e in by_tag.items()}

    assert faults["borealis/bf16"] == faults["iris/fp8"] == {}
    # Aurora garbles only prompts the probes never send (their longest: 775 characters): production's to catch.
    assert faults["aurora/fp8"].keys() == {"mojibake"} and faults["aurora/fp8"]["mojibake"]["longer_than"] == 4000
    assert faults["cinder/fp8"]["leading_garbage"].rate == 0.95
    assert faults["dune/int4"]["mix_language"].params["with"] == "es"
    assert sum(f.rate for f in faults["ember/fp8"].values()) >= 0.95
    assert faults["fjord/fp16"]["slow_first_token"].params["delay_ms"] > 10_000
    assert set(faults["glacier/fp8"]) == {"schema_malformed", "schema_violation"}
    assert 0.2 <= sum(f.rate for f in faults["harbor/bf16"].values()) <= 0.4
    assert "response_format" not in by_tag["iris/fp8"].supported_parameters
    assert "response_format" in by_tag["glacier/fp8"].supported_parameters
    for endpoint in by_tag.values():
        assert 300 <= endpoint.behaviour.ttft_ms <= 1500 and 30 <= endpoint.behaviour.tokens_per_second <= 80


def test_a_bundled_scenario_loads_by_name():
    assert load_scenario("healthy").name == "healthy"
    assert load_scenario(DEFAULT_SCENARIO).name == "default"


def broken(path: list, value: object) -> dict:
    data = copy.deepcopy(one_endpoint_scenario({"refusal": {"rate": 0.5}}))
    node = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return data


FIRST_FAULTS = ["models", 0, "endpoints", 0, "behaviour", "faults"]  # the first endpoint's faults


@pytest.mark.parametrize(
    ("path", "value", "named"),
    [
        ([*FIRST_FAULTS, "refusal", "rate"], 1.5, "models[0].endpoints[0].behaviour.faults.refusal.rate"),
        ([*FIRST_FAULTS, "shouting"], {"rate": 1}, "models[0].endpoints[0].behaviour.faults.shouting"),
        ([*FIRST_FAULTS, "http_error"], {"status": 200}, "faults.http_error.status"),
        ([*FIRST_FAULTS, "mix_language"], {"with": "xx"}, "faults.mix_language.with"),
        ([*FIRST_FAULTS, "empty_reply"], {"rate": 0.8}, "models[0].endpoints[0].behaviour.faults"),
        (["models", 0, "endpoints", 0, "behaviour", "ttft_ms"], "fast", "models[0].endpoints[0].behaviour.ttft_ms"),
        (["models", 0, "endpoints", 0, "pricing"], {"prompt": 0.0000001}, "models[0].endpoints[0].pricing.prompt"),
        (["models", 0, "endpoints", 0, "tagg"], "x", "models[0].endpoints[0].tagg"),
        (["models", 0, "endpoints", 1, "tag"], "test/fp8", "models[0].endpoints"),
        (["models", 0, "endpoints", 0, "phases"], [{"faults": {}}], "models[0].endpoints[0].phases[0]"),
        (["models", 0, "endpoints", 0, "phases"], [{"from_time": "yesterday"}], "phases[0].from_time"),
        (["models", 0, "id"], "no-slash", "models[0].id"),
    ],
    ids=["rate-above-one", "unknown-fault", "status-not-an-error", "unknown-language", "rates-above-one",
         "ttft-not-a-number", "price-not-a-string", "unknown-key", "duplicate-tag", "phase-without-bounds",
         "bad-time", "model-id-without-author"],  # fmt: skip
)
def test_a_bad_value_is_reported_with_the_source_and_the_key(path, value, named):
    with pytest.raises(ScenarioError) as caught:
        scenario_from_dict(broken(path, value), source="story.yaml")

    assert str(caught.value).startswith("story.yaml: ")
    assert named in str(caught.value)


def test_a_bad_scenario_file_names_the_file(tmp_path):
    file = tmp_path / "broken.yaml"
    file.write_text("models:\n  - id: " + MODEL + "\n    endpoints:\n"
                    "      - tag: a/b\n        behaviour: {tokens_per_second: 0}\n")

    with pytest.raises(ScenarioError, match=r"broken\.yaml: models\[0\]\.endpoints\[0\]\.behaviour\.tokens_per_second"):
        load_scenario(file)


def test_a_missing_scenario_file_is_a_scenario_error(tmp_path):
    with pytest.raises(ScenarioError, match="nothing.yaml"):
        load_scenario(tmp_path / "nothing.yaml")


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (["models", 0, "endpoints", 0, "phases"], [{"from_round": 2, "ttfx_ms": 1}],
         "story.yaml: models[0].endpoints[0].phases[0].ttfx_ms: unknown key (known here: available, faults, "),
        (["models", 0, "endpoints", 0, "behaviour", "jitter_ms"], -1,
         "story.yaml: models[0].endpoints[0].behaviour.jitter_ms: expected a number >= 0.0, got -1"),
        (["rate_limit"], {"concurrent": 0}, "story.yaml: rate_limit.concurrent: expected a whole number >= 1, got 0"),
        (["usage_shape"], "odd", "story.yaml: usage_shape: expected one of empty_choices, mixed, null_finish, "
                                 "repeat_finish, got 'odd'"),
    ],
    ids=["unknown-phase-key", "negative-jitter", "rate-limit-zero", "usage-shape"],
)
def test_the_message_names_the_dotted_key_and_what_is_expected(path, value, message):
    with pytest.raises(ScenarioError) as caught:
        scenario_from_dict(broken(path, value), source="story.yaml")

    assert str(caught.value).startswith(message)


def test_a_phase_changes_only_the_keys_it_names():
    data = one_endpoint_scenario({"refusal": {"rate": 0.5}})
    endpoint = data["models"][0]["endpoints"][0]
    endpoint["behaviour"]["ttft_ms"] = 900
    endpoint["phases"] = [{"from_round": 3, "tokens_per_second": 5}]
    phase = scenario_from_dict(data).models[0].endpoints[0].phases[0].behaviour
    assert (phase.ttft_ms, phase.tokens_per_second, [f.name for f in phase.faults]) == (900, 5, ["refusal"])


AT_FAULTS = "story.yaml: models[0].endpoints[0].behaviour.faults."


@pytest.mark.parametrize(
    ("faults", "message"),
    [
        ({"slow_first_token": {"delay": 5}},
         AT_FAULTS + "slow_first_token.delay: unknown key (known here: delay_ms, longer_than, only_when, rate)"),
        ({"slow_first_token": {"delay_ms": -1}},
         AT_FAULTS + "slow_first_token.delay_ms: expected a whole number >= 0, got -1"),
        ({"mix_language": {"with": "klingon"}}, AT_FAULTS + "mix_language.with: expected one of "),
        ({"http_error": {"status": [429, 200]}},
         AT_FAULTS + "http_error.status[1]: expected a whole number >= 400, got 200"),
        ({"http_error": {"status": []}}, AT_FAULTS + "http_error.status: expected a list of length >= 1, got []"),
        ({"refusal": {"rate": 2}}, AT_FAULTS + "refusal.rate: expected a number <= 1.0, got 2"),
        ({"refusal": {"only_when": []}}, AT_FAULTS + "refusal.only_when: expected a list of length >= 1, got []"),
        ({"refusal": ["x"]}, AT_FAULTS + "refusal: expected a mapping with at least `rate`"),
        ({"refusl": {}}, AT_FAULTS + "refusl: unknown fault (known: "),
        ({"refusal": {"rate": 0.6}, "empty_reply": {"rate": 0.6}},
         "story.yaml: models[0].endpoints[0].behaviour.faults: rates of exclusive faults add up to 1.2, more than 1"),
    ],
    ids=["unknown-parameter", "negative-delay", "unknown-language", "status-out-of-range", "no-status",
         "rate-above-one", "empty-scope", "not-a-mapping", "unknown-fault", "rates-over-one"],
)
def test_a_faults_parameters_are_declared_and_a_bad_one_is_named_with_its_file_and_key(faults, message):
    with pytest.raises(ScenarioError) as caught:
        scenario_from_dict(broken(FIRST_FAULTS, faults), source="story.yaml")

    assert str(caught.value).startswith(message)


def test_a_faults_parameters_read_with_their_defaults_and_one_status_or_several():
    scenario = scenario_from_dict(broken(FIRST_FAULTS, {"http_error": {"rate": 0.5, "status": 429},
                                                         "mix_language": {"rate": 0.5, "with": "de"}}))
    [http_error, mix] = scenario.models[0].endpoints[0].behaviour.faults
    assert (http_error.rate, http_error["statuses"], http_error["retry_after"], http_error["body"]) == (
        0.5, (429,), 1, "provider")
    assert (mix["with"], mix["level"], mix["ratio"]) == ("de", "both", 0.5)
