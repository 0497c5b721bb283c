"""Structured output: a small object with a fixed, strict schema via response_format json_schema.

Only for endpoints that advertise `response_format` or `structured_outputs` (otherwise
not_applicable: asking would be unroutable with require_parameters, and a host that never
claimed the capability has not regressed). A completed generation that breaks the schema
fails (capability regression); a dropped connection is a transport_error; JSON cut short by
our own max_tokens (finish_reason "length") is inconclusive.
"""

from __future__ import annotations

from typing import Any

from core.vocabulary import Outcome
from judge import structured as structured_judge
from judge.verdict import Verdict
from probes.http.records import Endpoint
from probes.round.cases import Case, CaseResult
from probes.round.contracts import (
    ChatClient,
    ContractSettings,
    attempt_from,
    clock,
    judge_in_thread,
    prompt,
    single,
    with_integrity_check,
)

CAPABILITIES = ("response_format", "structured_outputs")



def request() -> tuple[list[dict[str, str]], dict[str, Any], dict[str, Any]]:
    """(messages, response_format, schema) of the structured probe."""
    p = prompt("structured")
    msgs = [{"role": "system", "content": p["system"]}, {"role": "user", "content": p["user"]}]
    fmt = {"type": "json_schema", "json_schema": {"name": p["name"], "strict": True, "schema": p["schema"]}}
    return msgs, fmt, p["schema"]


async def probe(client: ChatClient, endpoint: Endpoint, settings: ContractSettings, case: Case) -> CaseResult:
    if not any(endpoint.supports(c) for c in CAPABILITIES):
        return CaseResult.for_case(case, Outcome.NOT_APPLICABLE,
                                   "the endpoint does not advertise response_format / structured_outputs")
    msgs, fmt, schema = request()
    start = clock()
    result = await client.chat(endpoint, msgs, max_tokens=settings.probe.max_tokens, response_format=fmt,
                               temperature=settings.probe.temperature)
    verdict = await judge_in_thread(structured_judge.assess, result.text, schema) if result.completed else None
    if (verdict is not None and verdict.failed and result.finish_reason == "length"
            and verdict.reason.startswith(structured_judge.NOT_JSON)):
        # Our own max_tokens cut the object before it closed: that says nothing about the host.
        verdict = Verdict(Outcome.INCONCLUSIVE, f"structured: the reply reached max_tokens "
                                          f"({settings.probe.max_tokens}) before the JSON closed; raise "
                                          f"probe.max_tokens ({verdict.reason})")
    attempt = with_integrity_check(attempt_from(result, endpoint, verdict, msgs), result, json_reply=True)
    return single(case, attempt, result, clock() - start)
