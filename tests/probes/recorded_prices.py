"""What OpenRouter lists for every model the recorded corpus replays, with where each price was found.

USD per million tokens (`per_m`), per search for `web_search`; `Listed.endpoint_fields()` turns one
entry into the Endpoint fields discovery would have read (USD per token). The main source is
pydantic/genai-prices `prices/providers/openrouter.yml` at 47df840a (2026-08-21), a table generated
from OpenRouter's own https://openrouter.ai/api/v1/models; models that table no longer carries
name their own source. OpenRouter lists one price per model there; an endpoint may charge its own
(the Kimi K2.5 and GLM hosts do), which the replay then reports as an underbilled note or a
finding, never hides.

A model is looked up by the id the response names (the served model, often dated:
`anthropic/claude-4.5-haiku-20251001`), through `ALIASES` to the listing's slug. `UNPRICED`
names the models no listing was found for, with the search that failed: their replies get every
reply check but billing (a check run without an endpoint leaves billing out), and the test that
every replayed model is priced accepts nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

GENAI_PRICES = ("pydantic/genai-prices@47df840a prices/providers/openrouter.yml "
                "(2026-08-21, from openrouter.ai/api/v1/models)")
PER_SEARCH = 0.01  # "$10/K web search" (openrouter.ai/openai/gpt-5.4-nano, 2026): OpenAI's native search


@dataclass(frozen=True, slots=True)
class Listed:
    """One model's listed prices (USD per million tokens; `web_search` USD per search) and their source."""

    prompt: float
    completion: float
    source: str
    cache_read: float | None = None
    cache_write: float | None = None
    web_search: float | None = None

    def endpoint_fields(self) -> dict[str, float | None]:
        """The probes.http.records.Endpoint fields of this listing (USD per token)."""
        def per_token(value: float | None) -> float | None:
            return None if value is None else value / 1e6
        return {"prompt_price": self.prompt / 1e6, "completion_price": self.completion / 1e6,
                "cache_read_price": per_token(self.cache_read), "cache_write_price": per_token(self.cache_write),
                "web_search_price": self.web_search}


LISTED: dict[str, Listed] = {
    "anthropic/claude-haiku-4.5": Listed(1, 5, GENAI_PRICES, cache_read=0.1, cache_write=1.25),
    "anthropic/claude-sonnet-4.5": Listed(3, 15, GENAI_PRICES, cache_read=0.3, cache_write=3.75),
    "anthropic/claude-3.7-sonnet:thinking": Listed(3, 15, GENAI_PRICES),
    "google/gemini-3.1-flash-lite-preview": Listed(0.25, 1.5, GENAI_PRICES, cache_read=0.025,
                                                   cache_write=0.08333333333333334),
    "google/gemini-2.5-flash": Listed(0.3, 2.5, GENAI_PRICES, cache_read=0.075, cache_write=0.3833),
    "google/gemini-2.5-flash-lite": Listed(0.1, 0.4, GENAI_PRICES, cache_read=0.01, cache_write=0.08333333333333334),
    "z-ai/glm-5-turbo": Listed(1.2, 4, GENAI_PRICES, cache_read=0.24),
    "z-ai/glm-4.6": Listed(0.43, 1.74, GENAI_PRICES, cache_read=0.08),
    "moonshotai/kimi-k2.5": Listed(0.4, 1.9, GENAI_PRICES, cache_read=0.09),
    "openai/gpt-5.4-nano": Listed(0.2, 1.25, GENAI_PRICES, cache_read=0.02, web_search=PER_SEARCH),
    "openai/gpt-5-mini": Listed(0.25, 2, GENAI_PRICES, cache_read=0.025, web_search=PER_SEARCH),
    "openai/gpt-5.1-codex-mini": Listed(0.25, 2, GENAI_PRICES, cache_read=0.025, web_search=PER_SEARCH),
    "openai/gpt-4o-mini": Listed(0.15, 0.6, GENAI_PRICES, cache_read=0.075, web_search=PER_SEARCH),
    "openai/gpt-4.1-mini": Listed(0.4, 1.6, GENAI_PRICES, cache_read=0.1, web_search=PER_SEARCH),
    "openai/o3": Listed(2, 8, GENAI_PRICES, cache_read=0.5, web_search=PER_SEARCH),
    "mistralai/mistral-small": Listed(0.2, 0.6, GENAI_PRICES),
    "deepseek/deepseek-chat": Listed(0.38, 0.89, GENAI_PRICES, web_search=PER_SEARCH),
    "minimax/minimax-m2:free": Listed(0, 0, "OpenRouter's `:free` variants are listed at 0 "
                                            "(guides/routing/model-variants/free)"),
    # Gone from the 2026-08 table (replaced by newer Grok models); xAI's own list prices, which
    # OpenRouter passes through for its one provider, xAI.
    "x-ai/grok-4.1-fast": Listed(0.2, 0.5, "xAI list price, grok-4-1-fast (glama.ai tetsuo-ai/grok-api-mcp model page; "
                                 "crazyrouter.com 'Grok 4.1 Thinking Pricing', 2026-04-27)", cache_read=0.05),
    "x-ai/grok-4": Listed(3, 15, "OpenRouter listing of x-ai/grok-4, $3/$15 (aicoach.pw/marketplace/llm/grok-4); "
                          "cached input $0.75 as xAI lists it", cache_read=0.75),
}

# The served model ids (as responses name them) of the listings above.
ALIASES: dict[str, str] = {
    "anthropic/claude-4.5-haiku-20251001": "anthropic/claude-haiku-4.5",
    "anthropic/claude-4.5-sonnet-20250929": "anthropic/claude-sonnet-4.5",
    "google/gemini-3.1-flash-lite-preview-20260303": "google/gemini-3.1-flash-lite-preview",
    "z-ai/glm-5-turbo-20260315": "z-ai/glm-5-turbo",
    "moonshotai/kimi-k2.5-0127": "moonshotai/kimi-k2.5",
    "openai/gpt-5.4-nano-20260317": "openai/gpt-5.4-nano",
    "openai/gpt-5-mini-2025-08-07": "openai/gpt-5-mini",
}

# Models no listing was found for: (what was searched, when).
UNPRICED: dict[str, str] = {
    "google/gemini-3.6-flash": "not in pydantic/genai-prices@47df840a nor on any page the search corpora hold "
                               "(searched 2026-12-02)",
}
# Endpoints that charge their own price, which no source gave: the model's listing is another
# endpoint's (a round reads each endpoint's own pricing from discovery, so it never compares these).
UNPRICED_ENDPOINTS: dict[tuple[str, str], str] = {
    ("moonshotai/kimi-k2.5", "Inceptron"): "Inceptron's own price for Kimi K2.5 not found (the model's listing is "
                                           "$0.40/$1.90; this bill is 1.16 x that)",
    ("moonshotai/kimi-k2.5", "ModelRun"): "ModelRun's own price for Kimi K2.5 not found (the bill is 1.70 x the "
                                          "model's listing)",
    ("z-ai/glm-4.6", "AtlasCloud"): "AtlasCloud's own price for GLM 4.6 not found (the bill is 1.35 x the "
                                    "model's listing of $0.43/$1.74)",
}


def slug(served_model: str) -> str:
    """The listing's slug of a served model id."""
    return ALIASES.get(served_model, served_model)


def listed(served_model: str, provider: str | None = None) -> Listed | None:
    """The listing of the served model on `provider`; None when it is UNPRICED there (or unknown: the
    test of the table says which)."""
    if (slug(served_model), provider) in UNPRICED_ENDPOINTS:
        return None
    return LISTED.get(slug(served_model))


def unlisted_fees(request: dict[str, Any], usage: dict[str, Any] | None) -> str | None:
    """Why a reply was billed beyond any listing, or None: the request carried an OpenRouter server
    tool (other than web search, which the listing prices) or a file part, and the bill says so
    itself, `usage.cost` above its own upstream inference cost (`cost_details`) by more than the
    searches it ran. A round never sends either (the advisor tool bills another model's
    generation, the file parser its own fee); neither is in a model's pricing object.
    """
    kinds = sorted({str(t.get("type")) for t in request.get("tools") or []
                    if t.get("type") not in ("function", "openrouter:web_search")})
    parts = [p for m in request.get("messages") or [] if isinstance(m.get("content"), list) for p in m["content"]]
    files = any(isinstance(p, dict) and p.get("type") == "file" for p in parts)
    details = (usage or {}).get("cost_details") or {}
    inference = sum(float(details.get(k) or 0) for k in ("upstream_inference_prompt_cost",
                                                          "upstream_inference_completions_cost"))
    searches = int(((usage or {}).get("server_tool_use_details") or {}).get("web_search_requests") or 0)
    fee = float((usage or {}).get("cost") or 0) - inference - searches * PER_SEARCH
    if not (kinds or files) or not details or fee <= 1e-9:
        return None
    what = f"server tool {', '.join(kinds)}" if kinds else "a file part (OpenRouter's file parser)"
    return f"{what}: ${fee:.8f} billed beyond the upstream inference, a fee no listing carries"
