"""Upstream input: odd tags and outcomes are set aside, broken structure is refused."""

from __future__ import annotations

import pytest
from rules_factories import PROVIDERS, case, results

from core.results import ResultsError
from core.results_read import read_results
from core.tags import is_valid_tag

HOSTILE = ["$(rm -rf /)", "a\nb", "../etc", "a b", "`x`", "-flag", "x" * 200, "", "é/fp8", "a;b"]


@pytest.mark.parametrize("tag", HOSTILE, ids=lambda t: ascii(t)[:12])
def test_hostile_tags_are_not_valid(tag: str) -> None:
    assert not is_valid_tag(tag)


@pytest.mark.parametrize("tag", ["aurora/fp8", "deepseek/deepseek-chat-v3-0324:free", "a.b_c-d"])
def test_ordinary_tags_are_valid(tag: str) -> None:
    assert is_valid_tag(tag)


def test_cases_with_hostile_provider_tags_are_set_aside_not_fatal() -> None:
    raw = results(extra_cases=[case("$(reboot)", "latency", "fail")])
    raw["models"]["deepseek/deepseek-chat-v3-0324"]["providers"].append("bad\ntag")
    r = read_results(raw)
    assert len(r.rejected) == 2
    assert all(c.provider in PROVIDERS for c in r.cases)
    assert "bad\ntag" not in r.providers("deepseek/deepseek-chat-v3-0324")


def test_an_unknown_outcome_is_set_aside() -> None:
    r = read_results(results(extra_cases=[case(PROVIDERS[0], "latency", "exploded")]))
    assert [x.problem for x in r.rejected] == [r.rejected[0].problem] and "unknown outcome" in r.rejected[0].problem


@pytest.mark.parametrize("field,value,message", [
    ("schema_version", 3, "schema_version"),
    ("round_id", "a b", "round_id"),
    ("started_at", "yesterday", "started_at"),
    ("complete", "yes", "complete"),
    ("cases", {}, "cases"),
])
def test_a_broken_structure_is_refused(field: str, value: object, message: str) -> None:
    raw = results()
    raw[field] = value
    with pytest.raises(ResultsError, match=message):
        read_results(raw)
