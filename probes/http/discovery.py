"""Discovery: which endpoints serve a model, via GET /models/{author}/{slug}/endpoints (docs/openrouter-wire.md
§1). A list is entirely trustworthy or DiscoveryError: an endpoint dropped quietly would go unprobed
forever. A hostile tag is refused, never repaired into something routable; DiscoveryError carries the
endpoints that passed (`.endpoints`) and every problem found (`.problems`).
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote

from core.errors import UpstreamError
from core.field_rules import MAX_BILL_USD, MAX_COUNT, short_figure
from core.tags import is_valid_model_id
from probes.http.client import PinnedClient, TransportError
from probes.http.records import Endpoint
from probes.http.wire import error_of, parse_json

MAX_TAG_LENGTH = 100
MAX_LISTING_BYTES = 4 * 1024 * 1024   # a real listing is a few KB; one byte more is read to tell a bigger one
_TAG = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*(?:/[A-Za-z0-9][A-Za-z0-9._-]*)*")


class DiscoveryError(UpstreamError):
    """Discovery of one model failed or returned something that cannot be trusted."""

    def __init__(self, model: str, message: str, *, status: int | None = None,
                 problems: tuple[str, ...] = (), endpoints: tuple[Endpoint, ...] = ()) -> None:
        super().__init__(f"discovery of {model!r} failed: {message}")
        self.model = model
        self.status = status
        self.problems = problems
        self.endpoints = endpoints


def endpoints_path(model: str) -> str:
    """`models/{author}/{slug}/endpoints`, the id split at its first `/`."""
    if not is_valid_model_id(model):
        raise DiscoveryError(model, "not a model id of the form author/slug")
    author, slug = model.split("/", 1)
    return f"models/{quote(author, safe='')}/{quote(slug, safe='/:')}/endpoints"


async def discover(client: PinnedClient, model: str) -> list[Endpoint]:
    """The model's endpoints, sorted by tag, or DiscoveryError saying exactly what is wrong."""
    path = endpoints_path(model)
    try:
        status, raw = await client.get_bytes(path, max_bytes=MAX_LISTING_BYTES + 1)
    except TransportError as exc:
        raise DiscoveryError(model, f"no answer from {client.settings.base_url} ({exc})") from None
    if len(raw) > MAX_LISTING_BYTES:  # cut there, it would only ever be "not JSON": say what it is
        raise DiscoveryError(model, f"HTTP {status}: the listing is too large (over {MAX_LISTING_BYTES >> 20} MiB, "
                             "read no further)", status=status)
    # Every string masked as it is decoded: a rejected entry is quoted cut to 60 characters,
    # an error message to 300, and a cut through the key would leave a piece of it.
    body = client.settings.mask.json(parse_json(raw))
    if status != 200:
        hint = " (check OPENROUTER_API_KEY)" if status in (401, 402, 403) else ""
        detail = error_of(body)[0] if body is not None else "non-JSON body"
        raise DiscoveryError(model, client.settings.scrub(f"HTTP {status}{hint}: {detail}"), status=status)
    return parse_endpoints(model, body)


def parse_endpoints(model: str, body: Any) -> list[Endpoint]:
    """Validate an endpoints listing (`{"data": {..., "endpoints": [...]}}`); pure."""
    if body is None:
        raise DiscoveryError(model, "the response is not JSON", status=200)
    data = body.get("data") if isinstance(body, dict) else None
    entries = data.get("endpoints") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise DiscoveryError(model, "the response has no data.endpoints list", status=200)
    if not entries:
        raise DiscoveryError(model, "the model has zero endpoints", status=200)
    problems: list[str] = []
    parsed: list[tuple[int, Endpoint]] = []
    for i, entry in enumerate(entries):
        try:
            parsed.append((i, _endpoint(model, entry)))
        except ValueError as exc:
            problems.append(f"entry {i}: {exc}")
    good = with_siblings(sorted(_distinct(parsed, problems), key=lambda e: e.provider))
    if problems:
        shown = "; ".join(problems[:5]) + (f"; and {len(problems) - 5} more" if len(problems) > 5 else "")
        raise DiscoveryError(model, f"{len(problems)} of {len(entries)} endpoints are unusable: {shown}",
                             status=200, problems=tuple(problems), endpoints=good)
    return list(good)


def endpoint_problems(endpoints: tuple[Endpoint, ...]) -> list[str]:
    """What discovery would refuse in endpoints read elsewhere (a replayed snapshot's): each tag and
    provider name checked as a listing's are, and tags that differ only by case."""
    problems: list[str] = []
    for i, ep in enumerate(endpoints):
        try:
            _check_names(ep.provider, ep.provider_name)
        except ValueError as exc:
            problems.append(f"entry {i}: {exc}")
    _distinct(enumerate(endpoints), problems)
    return problems


def _distinct(indexed: Iterable[tuple[int, Endpoint]], problems: list[str]) -> list[Endpoint]:
    """The endpoints but a later duplicate of a tag: tags that differ only by case are one host to
    OpenRouter if it matches them as it matches provider names (case-insensitively), probed and
    excluded twice, counted twice. Each one left out is a problem naming its entry."""
    found: dict[str, Endpoint] = {}
    for i, endpoint in indexed:
        twin = found.get(endpoint.provider.casefold())
        if twin is not None:
            same = ("duplicate tag" if twin.provider == endpoint.provider
                    else f"tag differs only by case from {twin.provider!r}:")
            problems.append(f"entry {i}: {same} {endpoint.provider!r}")
            continue
        found[endpoint.provider.casefold()] = endpoint
    return list(found.values())


def with_siblings(endpoints: list[Endpoint]) -> tuple[Endpoint, ...]:
    """Each bare tag (`deepinfra`) with the tags its base slug also matches (`deepinfra/turbo`): the pinned
    request ignores them, so only the bare endpoint can serve it (docs/openrouter-wire.md §2)."""
    out = []
    for ep in endpoints:
        siblings = () if "/" in ep.provider else tuple(
            e.provider for e in endpoints if e.provider != ep.provider and e.base_slug == ep.provider and not e.is_tier)
        out.append(dataclasses.replace(ep, siblings=siblings) if siblings else ep)
    return tuple(out)


_PERCENTILES = ("p50", "p75", "p90", "p99")


def _endpoint(model: str, entry: Any) -> Endpoint:
    if not isinstance(entry, dict):
        raise ValueError("not an object")
    tag, name = _check_names(entry.get("tag"), entry.get("provider_name"))
    params = entry.get("supported_parameters")
    if not isinstance(params, list) or not all(isinstance(p, str) for p in params):
        raise ValueError(f"tag {tag!r}: supported_parameters is not a list of strings")
    pricing = entry.get("pricing")
    if not isinstance(pricing, dict):
        raise ValueError(f"tag {tag!r}: pricing is not an object")
    quantization = entry.get("quantization")
    tier = entry.get("service_tier")
    p50, slowest = _throughput(entry.get("throughput_last_30m"))
    return Endpoint(
        model=model,
        provider=tag,
        provider_name=name.strip(),
        quantization=quantization if isinstance(quantization, str) else None,
        supported_parameters=tuple(params),
        prompt_price=_price(tag, pricing, "prompt"),
        completion_price=_price(tag, pricing, "completion"),
        request_price=_listed_price(pricing, "request") or 0.0,
        prompt_price_high=_higher(pricing, "prompt"),
        completion_price_high=_higher(pricing, "completion"),
        cache_read_price=_listed_price(pricing, "input_cache_read"),
        cache_write_price=_listed_price(pricing, "input_cache_write"),
        reasoning_price=_listed_price(pricing, "internal_reasoning"),
        web_search_price=_listed_price(pricing, "web_search"),
        context_length=_optional_int(tag, entry, "context_length"),
        max_completion_tokens=_optional_int(tag, entry, "max_completion_tokens"),
        status=_optional_int(tag, entry, "status") or 0,
        service_tier=tier if isinstance(tier, str) and tier.isascii() and tier.isalnum() else None,
        throughput_p50=p50, throughput_slowest=slowest,
    )


def _check_names(tag: Any, name: Any) -> tuple[str, str]:
    """(tag, provider name), or ValueError unless the tag is a routing slug and the name printable."""
    if not isinstance(tag, str):
        raise ValueError(f"tag is not a string ({_short(tag)})")
    if len(tag) > MAX_TAG_LENGTH or not _TAG.fullmatch(tag) or ".." in tag:
        raise ValueError(f"tag {_short(tag)} is not a routing slug (letters, digits, . _ - segments joined by /)")
    if not isinstance(name, str) or not name.strip() or not name.isprintable():
        raise ValueError(f"tag {tag!r}: provider_name is missing or not printable ({_short(name)})")
    return tag, name


def _throughput(raw: Any) -> tuple[float | None, float | None]:
    """`throughput_last_30m` as (p50, the slowest listed percentile: the minimum, never p99, docs/openrouter-wire.md
    §9). Advisory: an odd value is dropped, never a reason to refuse the endpoint; without a p50, neither is kept."""
    values = {k: float(v) for k, v in raw.items() if k in _PERCENTILES and isinstance(v, (int, float))
              and not isinstance(v, bool) and 0 < v <= MAX_COUNT} if isinstance(raw, dict) else {}  # NaN: False
    if "p50" not in values:
        return None, None
    return values["p50"], min(values.values())


def _price(tag: str, pricing: dict[str, Any], key: str) -> float:
    """USD per token from a decimal string ("0.00000014"); numbers are tolerated."""
    raw = pricing.get(key)
    try:
        if isinstance(raw, bool) or not isinstance(raw, (str, int, float)):
            raise ValueError
        # An int is compared before float(): float() of a 400-digit one overflows.
        value = float(raw) if not isinstance(raw, int) or -MAX_BILL_USD <= raw <= MAX_BILL_USD else math.inf
    except ValueError:
        raise ValueError(f"tag {tag!r}: pricing.{key} is not a decimal ({_short(raw)})") from None
    if not math.isfinite(value) and not isinstance(raw, int):
        raise ValueError(f"tag {tag!r}: pricing.{key} is not finite")
    if not -MAX_BILL_USD <= value <= MAX_BILL_USD:
        raise ValueError(f"tag {tag!r}: pricing.{key} {_short(raw)} is no real price (beyond "
                         f"${MAX_BILL_USD:g} a token)")
    return value


def _listed_price(pricing: dict[str, Any], key: str) -> float | None:
    """An optional price (billing honesty's), at its highest over `overrides`, conditional prices (OpenRouter's
    PricingOverride) whose application to one request is not ours to tell. Malformed reads as not listed."""
    overrides = pricing.get("overrides")
    entries = [pricing, *(o for o in overrides if isinstance(o, dict))] if isinstance(overrides, list) else [pricing]
    values = [v for e in entries if (v := _decimal(e.get(key))) is not None]
    return max(values) if values else None


def _higher(pricing: dict[str, Any], key: str) -> float | None:
    """The highest price an override lists for `key`, when it is above the base price."""
    base, high = _decimal(pricing.get(key)), _listed_price(pricing, key)
    return high if high is not None and base is not None and high > base else None


def _decimal(raw: Any) -> float | None:
    if isinstance(raw, bool) or not isinstance(raw, (str, int, float)):
        return None
    try:
        value = float(raw)
    except (ValueError, OverflowError):
        return None
    return value if math.isfinite(value) and 0 <= value <= MAX_BILL_USD else None


def _optional_int(tag: str, entry: dict[str, Any], key: str) -> int | None:
    value = entry.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"tag {tag!r}: {key} is not an integer ({_short(value)})")
    if not -MAX_COUNT <= value <= MAX_COUNT:  # compared as integers: no float of a 401-digit number
        raise ValueError(f"tag {tag!r}: {key} {short_figure(value)} is out of range (no listing has "
                         f"more than {MAX_COUNT})")
    return value


def _short(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        return short_figure(value)  # repr() of an int past 4,300 digits raises ValueError
    text = repr(value)  # repr escapes newlines and control characters, so messages stay one line
    return text if len(text) <= 60 else text[:57] + "..."
