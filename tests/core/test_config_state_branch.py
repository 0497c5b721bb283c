"""paths.state_branch: where the judge's files are committed (their own branch by default)."""

from __future__ import annotations

import pytest

from core.config import ConfigError, parse_config


def test_by_default_the_judges_files_go_to_their_own_branch() -> None:
    assert parse_config({}).paths.state_branch == "canary-state"


@pytest.mark.parametrize("value", ["", None])
def test_an_empty_state_branch_is_refused_saying_the_files_have_one_layout(value: object) -> None:
    with pytest.raises(ConfigError, match="paths.state_branch"):
        parse_config({"paths": {"state_branch": value}})


def test_another_branch_name_is_taken_as_is() -> None:
    assert parse_config({"paths": {"state_branch": "ops/canary-state"}}).paths.state_branch == "ops/canary-state"


@pytest.mark.parametrize("value", ["a..b", "-x", "x/", "x.lock", "two words", "x;rm", 3, ["x"]])
def test_a_name_git_would_refuse_is_refused_naming_the_key(value: object) -> None:
    with pytest.raises(ConfigError, match="paths.state_branch"):
        parse_config({"paths": {"state_branch": value}})
