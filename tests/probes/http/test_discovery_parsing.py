"""Discovery's validation of an endpoints listing (pure: no server needed)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from probes.http.discovery import DiscoveryError, endpoints_path, parse_endpoints

MODEL = "acme/model-x"


def entry(tag_: str, **over: Any) -> dict[str, Any]:
    tag = tag_
    base: dict[str, Any] = {
        "name": f"X | {MODEL}", "model_id": MODEL, "model_name": "X", "provider_name": tag.split("/")[0].title(),
        "tag": tag, "context_length": 131072, "max_completion_tokens": 16384, "max_prompt_tokens": None,
        "pricing": {"prompt": "0.00000014", "completion": "0.00000028", "discount": 0},
        "quantization": "fp8", "status": 0, "supported_parameters": ["max_tokens", "temperature"],
    }  # fmt: skip
    base.update(over)
    return base


def listing(*entries: dict[str, Any]) -> dict[str, Any]:
    return {"data": {"id": MODEL, "name": "X", "endpoints": list(entries)}}


def test_it_parses_endpoints_sorted_by_tag_with_prices_per_token() -> None:
    found = parse_endpoints(MODEL, listing(entry("zeta/fp8"), entry("deepinfra/fp8"), entry("google-vertex/us-east5")))
    assert [e.provider for e in found] == ["deepinfra/fp8", "google-vertex/us-east5", "zeta/fp8"]
    first = found[0]
    assert first.model == MODEL and first.provider_name == "Deepinfra" and first.quantization == "fp8"
    assert first.prompt_price == pytest.approx(1.4e-7) and first.completion_price == pytest.approx(2.8e-7)
    assert first.supports("temperature") and not first.supports("response_format")
    assert first.context_length == 131072 and first.max_completion_tokens == 16384 and first.status == 0


def test_nulls_where_the_spec_allows_them_are_kept_as_none() -> None:
    (e,) = parse_endpoints(MODEL, listing(entry("a/b", quantization=None, max_completion_tokens=None, status=None)))
    assert e.quantization is None and e.max_completion_tokens is None and e.status == 0


def test_a_deranked_endpoint_is_kept_with_its_status() -> None:
    (e,) = parse_endpoints(MODEL, listing(entry("a/b", status=-2)))
    assert e.status == -2


@pytest.mark.parametrize(
    "body",
    [None, [], {"data": None}, {"data": {"endpoints": None}}, {"data": {"endpoints": {"a": 1}}}, {"endpoints": []}],
    ids=["not-json", "a-list", "null-data", "null-endpoints", "endpoints-not-a-list", "unwrapped"],
)
def test_a_body_without_an_endpoints_list_is_an_error(body: Any) -> None:
    with pytest.raises(DiscoveryError, match="not JSON|no data.endpoints"):
        parse_endpoints(MODEL, body)


def test_zero_endpoints_is_an_error_not_an_empty_round() -> None:
    with pytest.raises(DiscoveryError, match="zero endpoints"):
        parse_endpoints(MODEL, listing())


HOSTILE_TAGS = {
    "newline": "aurora/fp8\nevil",
    "carriage-return": "aurora\r/fp8",
    "control-char": "aurora/\x1bfp8",
    "path-traversal": "../../etc/passwd",
    "dotdot-segment": "aurora/../fp8",
    "leading-slash": "/aurora",
    "trailing-slash": "aurora/",
    "space": "aurora fp8",
    "empty": "",
    "shell": "aurora;rm -rf",
    "too-long": "a" * 101,
    "non-ascii": "aurora/fp８",
}


@pytest.mark.parametrize("tag", HOSTILE_TAGS.values(), ids=HOSTILE_TAGS.keys())
def test_a_hostile_tag_rejects_the_listing_and_names_the_entry(tag: str) -> None:
    with pytest.raises(DiscoveryError) as info:
        parse_endpoints(MODEL, listing(entry("good/fp8"), entry(tag)))
    message = str(info.value)
    assert "entry 1" in message and "\n" not in message and "\r" not in message and "\x1b" not in message
    # The good endpoint is still available to a caller that wants to show it.
    assert [e.provider for e in info.value.endpoints] == ["good/fp8"]


@pytest.mark.parametrize(
    "bad",
    [
        {"tag": None}, {"tag": 7}, {"provider_name": None}, {"provider_name": "Evil\nName"},
        {"supported_parameters": "max_tokens"}, {"supported_parameters": [1]}, {"pricing": None},
        {"pricing": {"prompt": "free", "completion": "0"}}, {"pricing": {"completion": "0"}},
        {"pricing": {"prompt": "nan", "completion": "0"}}, {"context_length": "big"}, {"status": True},
    ],
    ids=[
        "tag-null", "tag-int", "provider-null", "provider-newline", "params-string", "params-ints", "pricing-null",
        "price-word", "price-missing", "price-nan", "context-string", "status-bool",
    ],
)  # fmt: skip
def test_an_entry_with_broken_fields_rejects_the_listing(bad: dict[str, Any]) -> None:
    with pytest.raises(DiscoveryError, match="entry 0"):
        parse_endpoints(MODEL, listing(entry("a/b", **bad)))


def test_an_entry_that_is_not_an_object_rejects_the_listing() -> None:
    with pytest.raises(DiscoveryError, match="entry 1: not an object"):
        parse_endpoints(MODEL, listing(entry("a/b"), "c/d"))  # type: ignore[arg-type]


def test_duplicate_tags_reject_the_listing() -> None:
    with pytest.raises(DiscoveryError, match="duplicate tag 'a/b'"):
        parse_endpoints(MODEL, listing(entry("a/b"), copy.deepcopy(entry("a/b"))))


def test_many_problems_are_summarised_on_one_line() -> None:
    with pytest.raises(DiscoveryError) as info:
        parse_endpoints(MODEL, listing(*[entry(f"bad tag {i}") for i in range(8)]))
    assert "8 of 8" in str(info.value) and "and 3 more" in str(info.value)
    assert len(info.value.problems) == 8


def test_the_path_splits_the_model_id_at_the_first_slash() -> None:
    assert endpoints_path("deepseek/deepseek-chat-v3-0324") == "models/deepseek/deepseek-chat-v3-0324/endpoints"
    assert endpoints_path("google/gemini-2.0-flash-exp:free") == "models/google/gemini-2.0-flash-exp:free/endpoints"


@pytest.mark.parametrize("model", ["noslash", "a/../b", "a/b c", "a/b\n", "/a", "a/", "a/b?x=1"])
def test_a_model_id_that_is_not_author_slug_is_refused_before_any_request(model: str) -> None:
    with pytest.raises(DiscoveryError, match="author/slug"):
        endpoints_path(model)


@pytest.mark.parametrize("throughput,expected", [
    ({"p50": 48, "p75": 40, "p90": 31, "p99": 12}, (48.0, 12.0)),   # the OpenAPI example's order
    ({"p50": 35, "p75": 42, "p90": 47, "p99": 58}, (35.0, 35.0)),   # the real listing's: p99 the fastest
    ({"p50": 48.5}, (48.5, 48.5)),
    (None, (None, None)),                                            # too little traffic, or no key
    ({"p75": 40, "p99": 12}, (None, None)),                          # no p50: nothing to compare with
    ({"p50": "fast", "p99": -1, "p90": float("nan")}, (None, None)),  # odd values are dropped, never fatal
    ({"p50": 60, "p99": True}, (60.0, 60.0)),
])
def test_the_advertised_throughput_is_its_p50_and_slowest_percentile(throughput: Any, expected: Any) -> None:
    [found] = parse_endpoints(MODEL, listing(entry("deepinfra/fp8", throughput_last_30m=throughput)))
    assert (found.throughput_p50, found.throughput_slowest) == expected
def test_the_optional_prices_billing_honesty_reads_are_parsed_and_absent_ones_are_none() -> None:
    pricing = {"prompt": "0.000003", "completion": "0.000015", "request": "0.0001", "input_cache_read": "0.0000003",
               "input_cache_write": "0.00000375", "internal_reasoning": "0.00002", "web_search": "0.01", "discount": 0}
    (e,) = parse_endpoints(MODEL, listing(entry("a/b", pricing=pricing)))
    assert (e.request_price, e.cache_read_price, e.cache_write_price, e.reasoning_price, e.web_search_price) == (
        pytest.approx(1e-4), pytest.approx(3e-7), pytest.approx(3.75e-6), pytest.approx(2e-5), pytest.approx(0.01))
    assert e.prompt_price_high is None and e.completion_price_high is None
    (plain,) = parse_endpoints(MODEL, listing(entry("a/b")))
    assert plain.request_price == 0.0 and plain.cache_read_price is None and plain.web_search_price is None


def test_conditional_prices_are_read_at_their_highest_and_a_malformed_optional_price_decides_nothing() -> None:
    # Gemini-2.5-Pro-like long-context pricing: the override doubles the prompt price above 200 K tokens.
    pricing = {"prompt": "0.00000125", "completion": "0.00001", "input_cache_read": "bad",
               "overrides": [{"min_prompt_tokens": 200000, "prompt": "0.0000025", "completion": "0.000015"}, "junk"]}
    (e,) = parse_endpoints(MODEL, listing(entry("a/b", pricing=pricing)))
    assert e.prompt_price == pytest.approx(1.25e-6)  # the base price, as every estimate reads it
    assert e.prompt_price_high == pytest.approx(2.5e-6) and e.completion_price_high == pytest.approx(1.5e-5)
    assert e.cache_read_price is None


HUGE = {"context-401-digits": {"context_length": 10**400},
        "completion-past-a-billion": {"max_completion_tokens": 10**9 + 1},
        "status-negative-huge": {"status": -(10**30)},
        "prompt-price-400-digits": {"pricing": {"prompt": 10**400, "completion": "0"}},
        "completion-price-a-dollar-million": {"pricing": {"prompt": "0", "completion": "1000000"}}}


@pytest.mark.parametrize("name", sorted(HUGE))
def test_a_number_no_listing_has_makes_its_entry_malformed_dropped_and_reported(name: str) -> None:
    """Issue 31: a 401-digit context_length crashed the model's probe (an OverflowError past here)."""
    with pytest.raises(DiscoveryError) as caught:
        parse_endpoints(MODEL, listing(entry("aurora/fp8"), entry("vault/fp8", **HUGE[name])))
    assert [e.provider for e in caught.value.endpoints] == ["aurora/fp8"]
    (problem,) = caught.value.problems
    assert problem.startswith("entry 1: tag 'vault/fp8': ")
    assert "out of range" in problem or "no real price" in problem
    assert len(problem) < 200  # the figure is shown by its digit count, not its 401 digits


def test_an_optional_price_no_listing_has_reads_as_not_listed() -> None:
    (found,) = parse_endpoints(MODEL, listing(entry("aurora/fp8", pricing={"prompt": "0.000001", "completion": "0",
                                                                           "request": 10**400, "web_search": "1e308"})))
    assert found.request_price == 0.0 and found.web_search_price is None
