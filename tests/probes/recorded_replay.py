"""One recorded exchange replayed through the pinned client and every check a round gives a reply.

`replay(it)` serves the recorded response from a real socket (recorded_server.serve_recorded) to
`PinnedClient.chat`, sent as the recording's own request was (its messages, cap, tools, reasoning,
stream flag), pinned to an endpoint named after the provider the response names and priced at the
served model's listed price (recorded_prices.py). The reply then meets, as the round's own code
judges it:
- the checks of every completed reply that fail a case (probes/round/reply_checks.py
  REPLY_CHECKS, on the reply's ReplyFacts built once): stream integrity, limits, billing
  (usage.cost against the listing), hidden completion tokens;
- reply integrity (judge/replies/integrity.py `check_reply`), as every contract records it;
- decode speed (`ReplyFacts.decode_tps`): a figure, judged only against peers, so it fails nothing here;
- the tools contract's judge where the request has the tools contract's shape (tools offered, no
  tool result yet: the turn that should call), then `run_checks` for the tools contract, which is
  how the round lets a reply check replace the contract's verdict.

`Replay.failures` names each failed check and its reason: on a completed healthy reply there
should be none. The harness copies nothing out of probes/ or judge/: it calls them.
"""

from __future__ import annotations

import asyncio
import dataclasses
from dataclasses import dataclass, field, replace
from typing import Any

from recorded_prices import listed, slug, unlisted_fees
from recorded_server import Interaction, serve_recorded

from core.upstream import Upstream
from judge.replies import tools as tools_judge
from judge.replies.billing import Bill
from judge.replies.integrity import check_reply
from judge.replies.verdict import Verdict
from probes.http.client import PinnedClient
from probes.http.records import ChatResult, Endpoint
from probes.round.contracts import tools as tools_contract
from probes.round.reply_checks import REPLY_CHECKS, Effect, ReplyFacts, run_checks

SECRET = "sk-or-v1-SENTINEL-recorded-5e2a7c"
# A bill reconciles when usage.cost is the listed price x the reported tokens to within this share
# (OpenRouter's costs are exact to the last digit it prints; a float's rounding is far below this).
RECONCILED_REL = 1e-6
REPLAY_S = 0.12   # how long one replayed stream takes, whatever its number of events
DEFAULT_CAP = 200  # sent when the recording sent none (the endpoint then lists no max_tokens: not judged)


def cap_of(request: dict[str, Any]) -> int | None:
    cap = request.get("max_completion_tokens") or request.get("max_tokens")
    return int(cap) if isinstance(cap, int) else None


def endpoint_for(it: Interaction, provider_name: str | None = None, *, priced: bool = True) -> Endpoint:
    """The endpoint a round would have pinned: the response's provider, the request's parameters, the listing."""
    name = provider_name or it.provider() or "Unknown"
    params = tuple(p for p, present in (("max_tokens", cap_of(it.request) is not None),
                                         ("tools", bool(it.request.get("tools"))),
                                         ("reasoning", "reasoning" in it.request)) if present)
    endpoint = Endpoint(str(it.request.get("model", "acme/model")), name.lower().replace(" ", "-"), name, None,
                        params, 0.0, 0.0, 128_000, None, 0)
    found = listed(it.served_model() or "", it.provider()) if priced else None
    return replace(endpoint, **found.endpoint_fields()) if found is not None else endpoint  # type: ignore[arg-type]


def drive(it: Interaction, endpoint: Endpoint, *, pieces: list[bytes] | None = None,
          pauses: dict[int, float] | None = None, max_tokens: int | None = None,
          gap_s: float = 0.002) -> tuple[ChatResult, dict[str, Any]]:
    """One PinnedClient.chat against the recorded (or derived) response; (result, the body sent)."""
    request = it.request
    messages = request.get("messages") or [{"role": "user", "content": "Hello"}]
    reasoning = request.get("reasoning") if isinstance(request.get("reasoning"), dict) else None

    async def use(base_url: str) -> ChatResult:
        async with PinnedClient(Upstream(base_url=base_url, api_key=SECRET), deadline_s=10.0) as client:
            return await client.chat(endpoint, messages, max_tokens=max_tokens or cap_of(request) or DEFAULT_CAP,
                                     stream=it.request_streamed, tools=request.get("tools") or None,
                                     reasoning=reasoning)

    result, served = asyncio.run(serve_recorded(pieces or it.events(), it.status, it.content_type, use,
                                                gap_s=gap_s, pauses=pauses))
    assert SECRET not in repr(result)
    assert served.paths == ["/api/v1/chat/completions"]
    return result, served.requests[0]


def tools_shape(it: Interaction) -> bool:
    """The tools contract's turn: tools offered and no tool result in the conversation yet."""
    messages = it.request.get("messages") or []
    return bool(it.request.get("tools")) and not any(m.get("role") == "tool" for m in messages)


def tool_specs(it: Interaction) -> tuple[tools_judge.Tool, ...]:
    """The recorded request's tools as the tools judge checks them (no stated values: no value notes)."""
    out = []
    for tool in it.request.get("tools") or []:
        function = tool.get("function") or {}
        out.append(tools_judge.Tool(str(function.get("name", "")), function.get("parameters") or {}, {}))
    return tuple(out)


@dataclass
class Replay:
    """What the round's checks made of one replayed reply."""

    it: Interaction
    endpoint: Endpoint
    result: ChatResult
    priced: bool
    unpriced_why: str | None = None                           # why billing was not judged (no listing, fees)
    failures: dict[str, str] = field(default_factory=dict)    # check -> reason
    notes: tuple[str, ...] = ()                               # billing notes (underbilled) and the tools judge's
    billed: Bill | None = None                                # usage.cost against the listed cost
    decode_tps: float | None = None
    tools_verdict: Verdict | None = None

    @property
    def reconciled(self) -> bool:
        if self.billed is None:
            return False
        cost, listed_cost = self.billed.billed, self.billed.listed
        return abs(cost - listed_cost) <= RECONCILED_REL * max(cost, listed_cost, 1e-12)


def _failed(verdict: Verdict | None) -> Verdict | None:
    return verdict if verdict is not None and verdict.failed else None


def replay(it: Interaction) -> Replay:
    """Serve `it`, then run every reply check on what the pinned client made of it (module docstring)."""
    fees = unlisted_fees(it.request, it.usage())
    found = listed(it.served_model() or "", it.provider())
    priced = found is not None and fees is None
    why = fees or (None if found is not None else f"no listed price for {slug(it.served_model() or '')} "
                                                    f"on {it.provider()}")
    endpoint = endpoint_for(it)
    # One write per SSE event, the whole stream paced over REPLAY_S: enough for the decode window
    # to be measured (its figure is then the replay's pace, not the host's: only "measured or set
    # aside, never failed" is checked), short enough for 107 replies.
    result, _ = drive(it, endpoint, gap_s=REPLAY_S / max(len(it.events()), 1))
    out = Replay(it, endpoint, result, priced, why)
    if not result.completed:
        out.failures["completed"] = f"{result.classification}: {result.error_message}"
        return out
    # The round's own facts and checks (probes/round/reply_checks.py); an unpriced reply's billing
    # is left out, as a round leaves out an endpoint without a listing.
    facts = ReplyFacts.of(result, endpoint)
    facts = facts if priced else dataclasses.replace(facts, prices=None)
    checks: dict[str, Verdict | None] = {
        check.name.replace(" ", "_"): check.find(facts) for check in REPLY_CHECKS
        if check.effect is Effect.FAILS_CASE and check.runs_on(facts)}
    checks["integrity"] = check_reply(result.text) if result.text.strip() and not result.reasoning_only else None
    if tools_shape(it):
        found = tools_contract.judge(result, tool_specs(it), result.max_tokens_sent or DEFAULT_CAP)
        out.tools_verdict = found.verdict
        out.notes += found.notes
        checks["tools"] = _failed(found.verdict)
        # The case as the round ends it: the reply checks that apply to the tools contract, run on its verdict.
        checks["tools_case"] = _failed(run_checks(facts, found.verdict, "tools").verdict)
    out.failures = {name: found.reason for name, found in checks.items() if found is not None}
    if priced:
        out.billed = facts.billing()
        out.notes += (out.billed.underbilled,) if out.billed and out.billed.underbilled else ()
    out.decode_tps = facts.decode_tps()
    return out


def replayed_models(interactions: tuple[Interaction, ...]) -> set[str]:
    """The listing slugs of every served model of the completed exchanges."""
    return {slug(it.served_model() or "") for it in interactions if it.status == 200}
