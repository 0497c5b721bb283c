"""The pinned request body: the §2.3 recipe, and never a parameter that makes the pin unroutable."""

from __future__ import annotations

from dataclasses import replace

from probes.records import Endpoint
from probes.wire import pinned_body

EP = Endpoint(model="acme/x", tag="aurora/fp8", provider_name="Aurora", quantization="fp8",
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
