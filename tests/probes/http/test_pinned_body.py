"""The pinned request body: the §2.3 recipe, and never a parameter that makes the pin unroutable."""

from __future__ import annotations

from dataclasses import replace

from probes.http.records import Endpoint
from probes.http.wire import ReasoningBudget, pinned_body, reasoning_request

EP = Endpoint(model="acme/x", provider="aurora/fp8", provider_name="Aurora", quantization="fp8",
              supported_parameters=("max_tokens", "temperature", "response_format", "structured_outputs"),
              prompt_price=1e-7, completion_price=4e-7, context_length=None, max_completion_tokens=None, status=0)
MSGS = [{"role": "user", "content": "hi"}]


def test_the_pin_is_order_and_only_the_exact_tag_without_fallbacks() -> None:
    body = pinned_body(EP, MSGS, max_tokens=200, stream=True, temperature=0.7, seed=3)
    assert body["provider"] == {"order": ["aurora/fp8"], "only": ["aurora/fp8"], "allow_fallbacks": False,
                                "require_parameters": True}
    assert "models" not in body and body["max_tokens"] == 200
    assert body["temperature"] == 0.7 and "seed" not in body  # seed is not listed by this endpoint


def test_an_endpoint_that_lists_only_max_completion_tokens_gets_the_cap_under_that_name() -> None:
    ep = replace(EP, supported_parameters=("max_completion_tokens", "temperature"))
    body = pinned_body(ep, MSGS, max_tokens=120, stream=True)
    assert body["max_completion_tokens"] == 120 and "max_tokens" not in body
    assert body["provider"]["require_parameters"] is True


def test_an_endpoint_that_lists_no_cap_is_still_routable() -> None:
    ep = replace(EP, supported_parameters=("temperature",))
    body = pinned_body(ep, MSGS, max_tokens=120, stream=True)
    assert body["max_tokens"] == 120 and body["provider"]["require_parameters"] is False
    fmt = {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object"}}}
    strict = pinned_body(ep, MSGS, max_tokens=120, stream=True, response_format=fmt)
    assert strict["provider"]["require_parameters"] is True  # never let a host strip response_format


# -- reasoning controls (probes/http/wire.py reasoning_request) ------------------------------------

BUDGET = ReasoningBudget(effort="low", max_tokens=1024)


def _with(*params: str, cap: int | None = None) -> Endpoint:
    return replace(EP, supported_parameters=("max_tokens", *params), max_completion_tokens=cap)


def test_an_endpoint_that_lists_no_reasoning_parameter_is_probed_as_before() -> None:
    assert reasoning_request(EP, BUDGET, 200) == (200, {})
    assert reasoning_request(_with("reasoning"), None, 200) == (200, {})  # no budget configured


def test_a_reasoning_endpoint_gets_low_effort_excluded_thinking_and_room_for_the_answer() -> None:
    cap, fields = reasoning_request(_with("reasoning", "include_reasoning"), BUDGET, 200)
    assert fields == {"reasoning": {"effort": "low", "exclude": True}} and cap == 200 + 1024
    body = pinned_body(_with("reasoning"), MSGS, max_tokens=cap, stream=True, reasoning=fields)
    assert body["reasoning"] == {"effort": "low", "exclude": True} and body["max_tokens"] == 1224
    assert body["provider"]["require_parameters"] is True  # safe: the endpoint lists `reasoning`


def test_without_an_effort_the_thinking_budget_is_sent_as_reasoning_max_tokens() -> None:
    cap, fields = reasoning_request(_with("reasoning"), ReasoningBudget(effort=None, max_tokens=2000), 32)
    assert fields == {"reasoning": {"max_tokens": 2000, "exclude": True}} and cap == 2032


def test_older_spellings_are_used_only_when_the_endpoint_lists_nothing_newer() -> None:
    assert reasoning_request(_with("reasoning_effort", "include_reasoning"), BUDGET, 200) == (
        1224, {"reasoning_effort": "low"})
    assert reasoning_request(_with("include_reasoning"), BUDGET, 200) == (1224, {"include_reasoning": False})


def test_the_cap_never_exceeds_what_the_endpoint_can_produce() -> None:
    assert reasoning_request(_with("reasoning", cap=800), BUDGET, 200)[0] == 800


def test_reasoning_turned_off_needs_no_room() -> None:
    off = ReasoningBudget(effort="none", max_tokens=1024)
    cap, fields = reasoning_request(_with("reasoning"), off, 200)
    assert fields == {"reasoning": {"effort": "none", "exclude": True}} and cap == 200
    # Hiding the thinking (the only control this endpoint lists) does not stop it: room stays.
    assert reasoning_request(_with("include_reasoning"), off, 200) == (1224, {"include_reasoning": False})


def test_no_reasoning_field_ever_reaches_an_endpoint_that_does_not_list_it() -> None:
    # Every combination of the three parameters: each field sent is one the endpoint lists.
    names = ("reasoning", "reasoning_effort", "include_reasoning")
    for mask in range(8):
        listed = tuple(n for i, n in enumerate(names) if mask >> i & 1)
        for budget in (BUDGET, ReasoningBudget(effort=None)):
            _, fields = reasoning_request(_with(*listed), budget, 100)
            assert set(fields) <= set(listed), (listed, fields)


def test_stop_strings_are_sent_only_when_given() -> None:
    assert "stop" not in pinned_body(EP, MSGS, max_tokens=50, stream=True)
    assert pinned_body(EP, MSGS, max_tokens=50, stream=True, stop=("13",))["stop"] == ["13"]
