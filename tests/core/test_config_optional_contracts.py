"""canary.yaml's optional contracts per model and the contracts still observed."""

from __future__ import annotations

import pytest

from core.config import ConfigError, parse_config


def test_no_model_runs_an_optional_contract_by_default() -> None:
    config = parse_config({})
    assert config.optional_contracts == {} and config.rules.observe_contracts == ("fidelity",)


def test_a_model_opts_in_to_optional_contracts() -> None:
    config = parse_config({"models": ["a/b"], "optional_contracts": {"a/b": ["stop", "fidelity"]}})
    assert config.optional_contracts == {"a/b": ("stop", "fidelity")}


def test_an_unknown_optional_contract_is_refused_with_its_key() -> None:
    with pytest.raises(ConfigError, match=r"optional_contracts\.a/b: unknown optional contract 'latency'"):
        parse_config({"optional_contracts": {"a/b": ["latency"]}})


def test_optional_contracts_must_be_a_mapping() -> None:
    with pytest.raises(ConfigError, match="optional_contracts: expected a mapping"):
        parse_config({"optional_contracts": ["stop"]})


def test_observe_contracts_names_only_known_contracts() -> None:
    assert parse_config({"rules": {"observe_contracts": []}}).rules.observe_contracts == ()
    with pytest.raises(ConfigError, match=r"rules\.observe_contracts\[0\]: expected one of latency, .*, got 'fidelty'"):
        parse_config({"rules": {"observe_contracts": ["fidelty"]}})


@pytest.mark.parametrize(("raw", "message"), [
    ({"optional_contracts": {"a/b": "stop"}},
     "canary.yaml: optional_contracts.a/b: expected a list of optional contracts (tools, stop, fidelity), got 'stop'"),
    ({"controls": {"a/b": ["x/fp8", " "]}},
     "canary.yaml: controls.a/b: expected a list of endpoint tags, got ['x/fp8', ' ']"),
    ({"controls": {"a/b": [3]}}, "canary.yaml: controls.a/b[0]: expected a string, got 3"),
])
def test_a_model_entry_of_controls_or_optional_contracts_is_typed(raw: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError) as refused:
        parse_config(raw, source="canary.yaml")
    assert str(refused.value) == message


def test_controls_are_read_as_tuples_of_tags() -> None:
    assert parse_config({"controls": {"a/b": ["x/fp8"]}}).controls == {"a/b": ("x/fp8",)}
