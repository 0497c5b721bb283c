"""Structured output: a small object with a fixed, strict schema via response_format json_schema.

What is asked and what fails: docs/contracts.md, The four contracts. What an endpoint promises
decides the request (docs/openrouter-wire.md §2): `structured_outputs` gets the strict schema,
`response_format` alone JSON mode, neither is not_applicable (asking would be unroutable with
require_parameters, and a host that never claimed the capability has not regressed). The schema
sent is the portable subset: strict modes may reject other keywords (an OpenAI-family strict mode
has answered 400 to `minimum`), which would freeze the host over our schema; the bounds stay in
the local judge (judge/replies/structured.py). A reply whose router metadata shows a
`response_healing` stage fails whatever its JSON: OpenRouter repaired what the host sent (unless
the stage says it did not improve the reply: docs/openrouter-wire.md §6).
"""

from __future__ import annotations

from typing import Any

from core.vocabulary import STRUCTURED, Outcome
from judge.replies import structured as structured_judge
from judge.replies.structured import StructuredCode
from judge.replies.verdict import Common, failed, inconclusive
from probes.http.records import Endpoint
from probes.round.cases import Case, ProbedCase
from probes.round.contracts import (
    ChatClient,
    ContractSettings,
    attempt_from,
    clock,
    judge_in_thread,
    prompt,
    single,
)

SCHEMA_CAPABILITY = "structured_outputs"   # response_format json_schema
JSON_MODE_CAPABILITY = "response_format"   # response_format json_object only
CAPABILITIES = (JSON_MODE_CAPABILITY, SCHEMA_CAPABILITY)
PORTABLE_KEYWORDS = frozenset({"type", "properties", "enum", "required", "additionalProperties", "items"})
JSON_OBJECT: dict[str, Any] = {"type": "object"}
JSON_MODE_NOTE = "JSON mode only: the endpoint lists response_format, not structured_outputs"


def portable(schema: Any) -> Any:
    """The schema with only the keywords every strict mode takes (nested schemas too)."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key not in PORTABLE_KEYWORDS:
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: portable(sub) for name, sub in value.items()}
        elif key == "items":
            out[key] = portable(value)
        else:
            out[key] = value
    return out


def request(*, json_mode: bool = False) -> tuple[list[dict[str, str]], dict[str, Any], dict[str, Any]]:
    """(messages, response_format, schema the judge checks) of the structured probe."""
    p = prompt(STRUCTURED)
    msgs = [{"role": "system", "content": p["system"]}, {"role": "user", "content": p["user"]}]
    if json_mode:
        return msgs, {"type": "json_object"}, JSON_OBJECT
    fmt = {"type": "json_schema", "json_schema": {"name": p["name"], "strict": True, "schema": portable(p["schema"])}}
    return msgs, fmt, p["schema"]


async def probe(client: ChatClient, endpoint: Endpoint, settings: ContractSettings, case: Case) -> ProbedCase:
    if not any(endpoint.supports(c) for c in CAPABILITIES):
        return ProbedCase.of(case, Outcome.NOT_APPLICABLE, Common.NOT_APPLICABLE,
                             "the endpoint does not advertise response_format / structured_outputs")
    json_mode = not endpoint.supports(SCHEMA_CAPABILITY)
    msgs, fmt, schema = request(json_mode=json_mode)
    start = clock()
    result = await client.chat(endpoint, msgs, max_tokens=settings.probe.max_tokens, response_format=fmt,
                               temperature=settings.probe.temperature)
    sent = None if json_mode else fmt["json_schema"]["schema"]
    verdict = await judge_in_thread(structured_judge.assess, result.text, schema, sent) if result.completed else None
    if (verdict is not None and verdict.failed and result.finish_reason == "length"
            and verdict.code is StructuredCode.NOT_JSON):
        # Our own max_tokens cut the object before it closed: that says nothing about the host.
        verdict = inconclusive(StructuredCode.MAX_TOKENS_CUT, f"structured: the reply reached max_tokens "
                                                              f"({settings.probe.max_tokens}) before the JSON closed; "
                                                              f"raise probe.max_tokens ({verdict.reason})")
    router = result.router
    if (verdict is not None and verdict.outcome is not Outcome.INCONCLUSIVE and router is not None and router.healed
            and router.healing_improved is not False):
        said = "improved: true" if router.healing_improved else "improvement not said"
        verdict = failed(StructuredCode.RESPONSE_HEALED, f"structured: OpenRouter's response healing repaired the "
                                                         f"host's JSON (router metadata: a response_healing stage, "
                                                         f"{said}): the host's own reply broke the contract, the "
                                                         f"repair was judged ({verdict.reason})")
    if verdict is not None and json_mode:
        verdict = verdict.restated(f"{verdict.reason} ({JSON_MODE_NOTE})")
    attempt = attempt_from(result, endpoint, verdict, msgs, case=case)
    return single(case, attempt, result, clock() - start)
