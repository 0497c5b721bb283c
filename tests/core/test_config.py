"""canary.yaml: defaults, overrides and errors that name the key."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from core.config import ConfigError, ConfigFile, load_config, parse_config
from core.vocabulary import LANGUAGES

REPO = Path(__file__).resolve().parents[2]
DEFAULTS = msgspec.to_builtins(ConfigFile(), enc_hook=str)   # canary.yaml's defaults as plain data


def test_the_checked_in_file_loads():
    config = load_config(REPO / "canary.yaml")
    assert config.models, "the checked-in canary.yaml names at least one model"
    assert config.mode in ("observe", "enforce")


def test_an_empty_file_means_every_default(tmp_path):
    (tmp_path / "c.yaml").write_text("")
    config = load_config(tmp_path / "c.yaml")
    assert config.mode == DEFAULTS["mode"]
    assert config.probe.ttft_seconds == DEFAULTS["probe"]["ttft_seconds"]
    assert config.rules.ladder_days == tuple(DEFAULTS["rules"]["ladder_days"])
    assert config.rules.capacity_floor == DEFAULTS["rules"]["capacity_floor"]
    assert config.languages == LANGUAGES


def test_the_spec_numbers_are_the_defaults():
    config = parse_config({})
    assert config.probe.ttft_seconds == 10
    assert config.rules.failed_rounds_to_suspend == 2
    assert config.rules.clean_rounds_to_restore == 2
    assert config.rules.ladder_days == (1, 3, 7)
    assert config.rules.fade_days == 14
    assert config.rules.capacity_floor == 2
    assert config.probe.language_confirmations == 2
    assert len(config.languages) == 17
    assert config.rules.pending_failure_hours == 2
    assert config.rules.min_round_gap_minutes == 20


def test_the_checked_in_file_names_no_simulator_host_as_a_control():
    from simulator import load_scenario

    fictional = {e.tag for m in load_scenario().models for e in m.endpoints}
    controls = load_config(REPO / "canary.yaml").controls
    assert not {t for tags in controls.values() for t in tags} & fictional


def test_a_nested_override_keeps_its_siblings():
    config = parse_config({"probe": {"ttft_seconds": 5}})
    assert config.probe.ttft_seconds == 5
    assert config.probe.max_tokens == DEFAULTS["probe"]["max_tokens"]


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        ({"mode": "enforced"}, "mode"),
        ({"probe": {"ttft_seconds": "ten"}}, "probe.ttft_seconds"),
        ({"probe": {"ttft_seconds": -1}}, "probe.ttft_seconds"),
        ({"probe": {"max_tokens": 2.5}}, "probe.max_tokens"),
        ({"concurrency": {"per_provider": 0}}, "concurrency.per_provider"),
        ({"rules": {"ladder_days": []}}, "rules.ladder_days"),
        ({"rules": {"model_wide_guard": {"enabled": "yes"}}}, "rules.model_wide_guard.enabled"),
        ({"rules": {"model_wide_guard": {"min_fraction": 1.5}}}, "rules.model_wide_guard.min_fraction"),
        ({"rules": {"reliability": "on"}}, "rules.reliability"),
        ({"languages": ["pt", "xx"]}, "languages"),
        ({"models": ["no-slash"]}, "models"),
        ({"contracts": ["speed"]}, "contracts"),
        ({"probe": {"ttft_secs": 3}}, "probe.ttft_secs"),
        ({"paths": {"state": ""}}, "paths.state"),
        ({"rules": {"pending_failure_hours": "two"}}, "rules.pending_failure_hours"),
        ({"rules": {"pending_failure_hours": 0}}, "rules.pending_failure_hours"),
        ({"rules": {"min_round_gap_minutes": -5}}, "rules.min_round_gap_minutes"),
        ({"rules": {"pending_failure_hours": 0.25, "min_round_gap_minutes": 15}}, "rules.min_round_gap_minutes"),
    ],
    ids=["mode", "ttft-not-number", "ttft-negative", "max-tokens-float", "per-provider-zero",
         "empty-ladder", "guard-enabled-string", "guard-fraction", "reliability-string", "unknown-language",
         "model-without-author", "unknown-contract", "typo-key", "empty-path", "pending-window-string",
         "pending-window-zero", "gap-negative", "gap-not-shorter-than-the-window"],
)
def test_a_bad_value_is_refused_naming_its_key(raw, key):
    with pytest.raises(ConfigError) as info:
        parse_config(raw, source="canary.yaml")
    assert key in str(info.value)
    assert "canary.yaml" in str(info.value)


def test_broken_yaml_names_the_file_and_line(tmp_path):
    bad = tmp_path / "canary.yaml"
    bad.write_text("mode: observe\nmodels: [a/b\nprobe: {}\n")
    with pytest.raises(ConfigError) as info:
        load_config(bad)
    assert str(bad) in str(info.value)
    assert "line" in str(info.value)


def test_a_missing_explicit_file_is_an_error(tmp_path):
    with pytest.raises(ConfigError, match="no such configuration file"):
        load_config(tmp_path / "missing.yaml")


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"rules": {"streak": {"rounds": 2}}}, "canary.yaml: rules.streak: unknown key (known here: capacity_floor, "),
        ({"rules": {"model_wide_guard": {"min_endpoint": 2}}}, "canary.yaml: rules.model_wide_guard.min_endpoint: "
                                                                "unknown key (known here: enabled, min_endpoints, "),
        ({"sites": {}}, "canary.yaml: sites: unknown key (known here: concurrency, contracts, controls, "),
        ({"probe": {"ttft_seconds": -1}}, "canary.yaml: probe.ttft_seconds: expected a number >= 0.1, got -1"),
        ({"probe": {"max_tokens": "200"}}, "canary.yaml: probe.max_tokens: expected a whole number, got '200'"),
        ({"rules": {"fade_days": True}}, "canary.yaml: rules.fade_days: expected a whole number, got True"),
        ({"rules": {"ladder_days": [1, -3]}}, "canary.yaml: rules.ladder_days[1]: expected a number > 0.0, got -3"),
        ({"mode": "enforced"}, "canary.yaml: mode: expected one of observe, enforce, got 'enforced'"),
        ({"probe": []}, "canary.yaml: probe: expected a mapping, got []"),
        ({"controls": {"a/b": "x/fp8"}}, "canary.yaml: controls.a/b: expected a list of endpoint tags, got 'x/fp8'"),
    ],
    ids=["unknown-section", "unknown-nested-key", "unknown-top-level-key", "out-of-range", "a-string-is-no-number",
         "a-boolean-is-no-number", "a-list-item", "a-choice", "a-section-that-is-no-mapping",
         "a-control-that-is-no-list"],
)
def test_the_message_names_the_file_the_dotted_key_and_what_is_expected(raw, message):
    with pytest.raises(ConfigError) as info:
        parse_config(raw, source="canary.yaml")
    assert str(info.value).startswith(message)


def test_a_policy_built_in_code_obeys_the_declaration_canary_yaml_is_read_with():
    from core.policy import Policy, PolicyError

    with pytest.raises(PolicyError, match="Policy: fade_days: expected a whole number >= 1, got 0"):
        Policy(fade_days=0)
    with pytest.raises(PolicyError, match="rules.pending_failure_hours"):
        Policy(pending_failure_hours=0.25, min_round_gap_minutes=15)


def test_a_rule_number_is_spelled_once_in_rules_and_policy_adds_only_what_is_not_a_rule():
    from dataclasses import fields

    from core.policy import GuardRules, Policy, PolicyError, Rules

    rule_names = [f.name for f in fields(Rules)]
    assert [f.name for f in fields(Policy)] == [*rule_names, "languages", "remembered_rounds", "mode"]
    changed = Rules(failed_rounds_to_suspend=5, ladder_days=(2, 4), model_wide_guard=GuardRules(min_endpoints=7),
                    reliability=True, observe_contracts=())
    policy = Policy.from_rules(changed, languages=("en",), mode="enforce")
    assert {n: getattr(policy, n) for n in rule_names} == {n: getattr(changed, n) for n in rule_names}
    assert policy.rules_section()["model_wide_guard"] == {"enabled": True, "min_fraction": 0.5, "min_endpoints": 7}
    guard_refused = r"^Policy: model_wide_guard\.min_fraction: expected a number <= 1\.0, got 2$"
    with pytest.raises(PolicyError, match=guard_refused):
        Policy(model_wide_guard=GuardRules(min_fraction=2))
