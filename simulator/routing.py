"""OpenRouter's provider preferences: which endpoints may serve a request, in which order.

`ignore` / `only` / `quantizations` / `require_parameters` filter; items match by full tag, base slug
(never a service tier) or display name, case-insensitively (docs/openrouter-wire.md §2). `order` puts
matches first; without it, fallbacks allowed, one endpoint is drawn by the inverse square of its price
and the others follow by price ("Price-Based Load Balancing", guides/routing/provider-selection), the
draw reproducible per conversation; without fallbacks, the cheapest alone. `allow_fallbacks: false`
keeps only the `order`ed endpoints, or the first one: a request reaches exactly that or fails.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from simulator.request import BadRequest
from simulator.scenario import SimulatedEndpoint


def matches(item: str, endpoint: SimulatedEndpoint) -> bool:
    """Whether one `order`/`only`/`ignore` item designates this endpoint."""
    wanted = item.strip().lower()
    if wanted == endpoint.tag:
        return True
    # Neither a base slug nor a display name reaches a tier endpoint (docs/openrouter-wire.md §2).
    if endpoint.service_tier not in (None, "default"):
        return False
    return wanted == endpoint.provider_name.lower() or ("/" not in wanted and wanted == endpoint.base_slug)


def route(
    endpoints: Sequence[SimulatedEndpoint], provider: Mapping[str, Any], parameters: frozenset[str],
    draw: float = 0.0,
) -> list[SimulatedEndpoint]:
    """The endpoints to try, in order; empty means no allowed provider is left. `draw` in [0, 1)
    picks the load-balanced first endpoint of an unordered request (0: the cheapest)."""
    order = _slugs(provider, "order")
    only = _slugs(provider, "only")
    ignore = _slugs(provider, "ignore")
    quantizations = {q.lower() for q in _slugs(provider, "quantizations")}
    allow_fallbacks = provider.get("allow_fallbacks", True)
    if not isinstance(allow_fallbacks, bool):
        raise BadRequest("Invalid provider preferences: allow_fallbacks must be a boolean")
    require = provider.get("require_parameters", False) is True

    eligible = [
        e for e in endpoints
        if not any(matches(i, e) for i in ignore)
        and (not only or any(matches(i, e) for i in only))
        and (not quantizations or (e.quantization or "unknown").lower() in quantizations)
        and (not require or parameters <= set(e.supported_parameters))
    ]  # fmt: skip
    by_price = sorted(eligible, key=_price)
    if not order:
        return _balanced(by_price, draw) if allow_fallbacks else by_price[:1]
    preferred: list[SimulatedEndpoint] = []
    for item in order:
        preferred += [e for e in eligible if matches(item, e) and e not in preferred]
    if not allow_fallbacks:
        return preferred
    return preferred + [e for e in by_price if e not in preferred]


def _balanced(by_price: list[SimulatedEndpoint], draw: float) -> list[SimulatedEndpoint]:
    """One endpoint drawn by the inverse square of its price first, the others by price after it."""
    weights = [1 / max(_price(e), Decimal("1e-12")) ** 2 for e in by_price]
    edge, target = Decimal(0), Decimal(draw) * sum(weights, Decimal(0))
    for endpoint, weight in zip(by_price, weights, strict=True):
        edge += weight
        if target < edge:
            return [endpoint, *(e for e in by_price if e is not endpoint)]
    return by_price


def _slugs(provider: Mapping[str, Any], key: str) -> list[str]:
    value = provider.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BadRequest(f"Invalid provider preferences: {key} must be an array of strings")
    return value


def _price(endpoint: SimulatedEndpoint) -> Decimal:
    return Decimal(endpoint.pricing.get("prompt", "0")) + Decimal(endpoint.pricing.get("completion", "0"))
