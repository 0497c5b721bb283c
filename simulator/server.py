"""The aiohttp application: OpenRouter's routes, auth, request recording and the control route
(`/_sim/control`, never part of OpenRouter); the routes are simulator/README.md's."""

from __future__ import annotations

import dataclasses
import json
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from aiohttp import web

from core.times import parse_time
from core.vocabulary import SIMULATOR_HEADER
from simulator import stream, wire
from simulator.plan import Plan
from simulator.replies import Hang, HttpFailure, Moderated, Outcome, Reset, plan_reply, reply_rng
from simulator.request import BadRequest, parse_chat_request
from simulator.routing import route
from simulator.scenario import Behaviour, Model, Scenario, SimulatedEndpoint

API = "/api/v1"
_SECRET_HEADERS = frozenset({"authorization", "x-api-key", "api-key", "cookie", "proxy-authorization"})
# What an aiohttp middleware is handed: the next handler of the request.
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass(frozen=True, slots=True)
class ReceivedRequest:
    """One request as the simulator saw it; secrets in headers are masked."""

    method: str
    path: str
    query: Mapping[str, str]
    headers: Mapping[str, str]
    body: Any
    at: float

    @property
    def provider(self) -> Mapping[str, Any]:
        """The `provider` preferences of a chat request ({} otherwise)."""
        return self.body.get("provider") or {} if isinstance(self.body, dict) else {}


@dataclass
class SimState:
    """Mutable runtime state of one server: clock/round selection, attempt counters, the log."""

    scenario: Scenario
    seed: int = 0
    round_number: int = 1
    now_override: datetime | None = None
    attempts: Counter[tuple[str, str]] = field(default_factory=Counter)
    received: list[ReceivedRequest] = field(default_factory=list)
    in_flight: int = 0          # chat requests being answered (the scenario's rate_limit counts them)
    rate_limited: int = 0       # chat requests answered 429 by the rate limit
    # Chat requests being answered per endpoint tag (the host), and the most at once: what a
    # provider's own throttle would see (the probes' per_provider cap must hold it across models).
    host_in_flight: Counter[str] = field(default_factory=Counter)
    host_peak: dict[str, int] = field(default_factory=dict)
    # The generations answered: id -> model, endpoint, time (the newest MAX_GENERATIONS).
    generations: dict[str, tuple[Model, SimulatedEndpoint, datetime]] = field(default_factory=dict)

    def now(self) -> datetime:
        return self.now_override or datetime.now(UTC)

    def remember(self, model: Model, served: SimulatedEndpoint) -> str:
        """A new generation id, remembered with who served it (the oldest forgotten past MAX_GENERATIONS)."""
        gen_id = wire.generation_id()
        self.generations[gen_id] = (model, served, self.now())
        if len(self.generations) > MAX_GENERATIONS:
            del self.generations[next(iter(self.generations))]
        return gen_id

    def behaviour(self, endpoint: SimulatedEndpoint) -> Behaviour:
        return endpoint.behaviour_at(self.round_number, self.now())

    def live_endpoints(self, model: Model) -> list[SimulatedEndpoint]:
        return [e for e in model.endpoints if self.behaviour(e).available]


STATE = web.AppKey("state", SimState)
MAX_GENERATIONS = 100_000


def mask(name: str, value: str) -> str:
    """Keep the scheme and the last 2 characters so logs stay useful without the secret."""
    if name.lower() not in _SECRET_HEADERS:
        return value
    scheme, _, secret = value.partition(" ")
    if not secret:
        return "***"
    return f"{scheme} ***{secret[-2:]}" if len(secret) > 8 else f"{scheme} ***"


def create_app(state: SimState) -> web.Application:
    app = web.Application(middlewares=[_record, _auth])
    app.on_response_prepare.append(_identify)
    app[STATE] = state
    app.router.add_get(f"{API}/models", models)
    app.router.add_get(f"{API}/models/{{author}}/{{slug}}/endpoints", endpoints)
    app.router.add_get(f"{API}/providers", providers)
    app.router.add_get(f"{API}/key", key)
    app.router.add_post(f"{API}/chat/completions", chat)
    app.router.add_get(f"{API}/generation", generation)
    app.router.add_post(f"{API}/generation/feedback", feedback)
    app.router.add_route("*", "/_sim/control", control)
    return app


@web.middleware
async def _record(request: web.Request, handler: Handler) -> web.StreamResponse:
    body: Any = None
    if request.can_read_body:
        raw = await request.read()  # cached by aiohttp, handlers can read it again
        try:
            body = json.loads(raw)
        except ValueError:
            body = raw.decode("utf-8", "replace")
    request.app[STATE].received.append(
        ReceivedRequest(
            method=request.method, path=request.path, query=dict(request.query),
            headers={k: mask(k, v) for k, v in request.headers.items()}, body=body, at=time.time(),
        )
    )  # fmt: skip
    response: web.StreamResponse = await handler(request)
    return response


async def _identify(request: web.Request, response: web.StreamResponse) -> None:
    """Every answer names the simulator (core.vocabulary.SIMULATOR_HEADER), errors and streams
    included: a round is classified by who answers, never by the address (a proxy on localhost
    in front of OpenRouter is not the simulator)."""
    response.headers[SIMULATOR_HEADER] = "canary-simulator"


@web.middleware
async def _auth(request: web.Request, handler: Handler) -> web.StreamResponse:
    if request.path.startswith(API):
        scheme, _, key = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not key.strip():
            return stream.json_error(401, wire.error_body(401, "Missing Authentication header"))
    response: web.StreamResponse = await handler(request)
    return response


async def models(request: web.Request) -> web.Response:
    state = request.app[STATE]
    data = [wire.model_json(m, state.live_endpoints(m)) for m in state.scenario.models]
    return web.json_response({"data": data, "total_count": len(data), "links": {"next": None}})


async def endpoints(request: web.Request) -> web.Response:
    state = request.app[STATE]
    model_id = f"{request.match_info['author']}/{request.match_info['slug']}"
    model = state.scenario.model(model_id)
    if model is None:
        return stream.json_error(404, wire.error_body(404, f"No endpoints found for {model_id}."))
    return web.json_response(wire.model_endpoints_json(model, state.live_endpoints(model), stats=True))


async def key(request: web.Request) -> web.Response:
    """`GET /key`: the key's information, in OpenRouter's shape (only fields a caller might read), or
    the scenario's refusal of the key."""
    limit = request.app[STATE].scenario.key
    if limit.refused is not None:
        return stream.json_error(limit.refused, wire.error_body(limit.refused))
    data = {"label": "sk-or-v1-sim...", "limit": limit.limit, "limit_remaining": limit.remaining,
            "usage": limit.usage, "is_free_tier": False, "is_management_key": False, "is_provisioning_key": False,
            "expires_at": None}
    return web.json_response({"data": data})


async def providers(request: web.Request) -> web.Response:
    state = request.app[STATE]
    return web.json_response(wire.providers_json([e for m in state.scenario.models for e in state.live_endpoints(m)]))


async def control(request: web.Request) -> web.Response:
    state = request.app[STATE]
    if request.method == "POST":
        try:
            body = await request.json()
            if "round" in body:
                if isinstance(body["round"], bool) or not isinstance(body["round"], int) or body["round"] < 1:
                    raise ValueError("round must be an integer >= 1")
                state.round_number = body["round"]
            if "now" in body:
                state.now_override = None if body["now"] is None else _parse_time(body["now"])
        except (ValueError, TypeError, AttributeError) as exc:
            return stream.json_error(400, wire.error_body(400, f"Invalid control request: {exc}"))
    clock = "fixed" if state.now_override else "real"
    return web.json_response({"round": state.round_number, "now": state.now().isoformat(), "clock": clock,
                              "rate_limited": state.rate_limited, "host_peak_in_flight": dict(state.host_peak)})


async def chat(request: web.Request) -> web.StreamResponse:
    state = request.app[STATE]
    limit = state.scenario.rate_limit
    if limit is not None and state.in_flight >= limit.concurrent:
        # The key's own limit, before routing: OpenRouter's envelope, no provider named.
        state.rate_limited += 1
        body = wire.error_body(429, "Rate limit exceeded: too many concurrent requests",
                               {"error_type": "rate_limit_exceeded"})
        return stream.json_error(429, body, limit.retry_after)
    state.in_flight += 1
    try:
        return await _chat(request, state)
    finally:
        state.in_flight -= 1


async def _chat(request: web.Request, state: SimState) -> web.StreamResponse:
    try:
        body = json.loads(await request.read())
        req = dataclasses.replace(parse_chat_request(body), headers=tuple(request.headers.items()))
    except ValueError as exc:  # includes BadRequest and JSON errors
        message = str(exc) if isinstance(exc, BadRequest) else "Invalid request body: not valid JSON"
        return stream.json_error(400, wire.error_body(400, message, {"error_type": "invalid_request"}))
    model = state.scenario.model(req.model)
    if model is None:
        return stream.json_error(404, wire.error_body(404, f"No endpoints found for {req.model}."))
    try:
        draw = reply_rng(state.seed, "routing", req.messages_hash, 0).random()  # the same conversation, the same host
        candidates = route(state.live_endpoints(model), req.provider, req.parameters, draw)
    except BadRequest as exc:
        return stream.json_error(400, wire.error_body(400, str(exc), {"error_type": "invalid_request"}))
    if not candidates:
        message = "No allowed providers are available for the selected model."
        return stream.json_error(404, wire.error_body(404, message))
    for position, endpoint in enumerate(candidates):
        unaffordable = wire.credits_error_body(state.scenario.key, req.max_tokens, endpoint)
        if unaffordable is not None:  # refused before routing to it, as OpenRouter does
            if position + 1 < len(candidates):
                continue
            return stream.json_error(402, unaffordable)
        key = (endpoint.tag, req.messages_hash)
        attempt = state.attempts[key]
        rng = reply_rng(state.seed, endpoint.tag, req.messages_hash, attempt)
        state.attempts[key] += 1
        outcome = plan_reply(req, model, endpoint, state.behaviour, rng, state.scenario.usage_shape, attempt=attempt)
        if isinstance(outcome, HttpFailure) and position + 1 < len(candidates):
            continue  # fallbacks allowed and another endpoint is eligible: OpenRouter moves on
        state.host_in_flight[endpoint.tag] += 1
        state.host_peak[endpoint.tag] = max(state.host_peak.get(endpoint.tag, 0), state.host_in_flight[endpoint.tag])
        try:
            return await _send(request, outcome, model, state, streaming=req.stream)
        finally:
            state.host_in_flight[endpoint.tag] -= 1
    raise AssertionError("unreachable: the last candidate always returns")


async def _send(
    request: web.Request, outcome: Outcome, model: Model, state: SimState, *, streaming: bool
) -> web.StreamResponse:
    extra = {"X-Sim-Faults": ",".join(outcome.faults) or "none",  # for humans and tests; probes must not rely on it
             **wire.provider_header(outcome.served)}
    if isinstance(outcome, Plan) and outcome.provider_header is not None:  # hostile: echo_at_cut into header
        extra["X-Provider-Name"] = outcome.provider_header
    if isinstance(outcome, Reset):
        return stream.reset(request)
    if isinstance(outcome, Hang):
        return await stream.hang(request, outcome.seconds)
    status = 403 if isinstance(outcome, Moderated) else outcome.status if isinstance(outcome, HttpFailure) else 200
    # Router metadata when asked for: beside `error` in an envelope, except a 500's (scrubbed).
    meta = (wire.router_metadata(model, outcome.served, outcome.faults, status,
                                 outcome.pipeline if isinstance(outcome, Plan) else ())
            if wire.metadata_wanted(request.headers) and status != 500 else None)
    if isinstance(outcome, Moderated | HttpFailure):
        body = (wire.moderation_error_body(model, outcome.served, outcome.reasons, outcome.flagged_input)
                if isinstance(outcome, Moderated) else
                wire.provider_error_body(status, model, outcome.served, outcome.body, outcome.error_type))
        response = stream.json_error(status, {**body, **({"openrouter_metadata": meta} if meta else {})},
                                     None if isinstance(outcome, Moderated) else outcome.retry_after)
        response.headers.update(extra)
        return response
    framing = stream.Framing(model, state.remember(model, outcome.served), state.scenario.keepalive_ms / 1000, extra,
                             meta)
    if streaming:
        return await stream.send_stream(request, outcome, framing)
    return await stream.send_completion(request, outcome, framing)


async def generation(request: web.Request) -> web.Response:
    """`GET /generation?id=`: a generation this server answered, in OpenRouter's shape (docs/openrouter-wire.md §12)."""
    served = request.app[STATE].generations.get(request.query.get("id", ""))
    if served is None:
        return stream.json_error(404, wire.error_body(404, "Generation not found"))
    return web.json_response({"data": wire.generation_json(request.query["id"], *served)})


async def feedback(request: web.Request) -> web.Response:
    """`POST /generation/feedback`: validated as OpenRouter's schema says (the body stays in `received`)."""
    try:
        body = await request.json()
    except ValueError:
        body = None
    problem = wire.feedback_problem(body)
    if problem is not None:
        return stream.json_error(400, wire.error_body(400, problem))
    if body["generation_id"] not in request.app[STATE].generations:
        return stream.json_error(404, wire.error_body(404, "Generation not found"))
    return web.json_response({"data": {"success": True}})


def _parse_time(value: Any) -> datetime:
    return parse_time(str(value), "now")
