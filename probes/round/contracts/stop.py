"""Stop sequences: a count sent with a stop string inside the count, pinned like the others.

Only for an endpoint that lists `stop` (not_applicable otherwise: a host that never claimed it
has not regressed, and with require_parameters the request would be unroutable). The reply is
judged by judge/replies/stop.py: text after the stop string fails (`stop_ignored`), the reply
ending with it fails (`stop_echoed`), the count up to the number before it passes, and a reply
that did not follow the task is inconclusive (it says nothing about the stop). One request,
temperature 0 where listed (the count is the task, not the sampling).
"""

from __future__ import annotations

from core.vocabulary import STOP, Outcome
from judge.replies import stop as stop_judge
from judge.replies.verdict import Common, Verdict
from probes.http.records import ChatResult, Endpoint
from probes.round.cases import Case, ProbedCase
from probes.round.contracts import (
    ChatClient,
    ContractSettings,
    attempt_from,
    clock,
    prompt,
    single,
)

CAPABILITY = "stop"   # the supported parameter
TEMPERATURE = 0.0


def request() -> tuple[list[dict[str, str]], str, int]:
    """(messages, the stop string, the first number of the count)."""
    p = prompt(STOP)
    return ([{"role": "system", "content": p["system"]}, {"role": "user", "content": p["user"]}],
            str(p["stop"]), int(p["start"]))


def judge(result: ChatResult, stop: str, start: int) -> Verdict | None:
    """The verdict on a completed reply (None: nothing was generated to judge)."""
    if not result.completed:
        return None
    return stop_judge.assess(result.text, stop, finish_reason=result.finish_reason, start=start)


async def probe(client: ChatClient, endpoint: Endpoint, settings: ContractSettings, case: Case) -> ProbedCase:
    if not endpoint.supports(CAPABILITY):
        return ProbedCase.of(case, Outcome.NOT_APPLICABLE, Common.NOT_APPLICABLE,
                             "the endpoint does not advertise stop")
    msgs, stop, start = request()
    began = clock()
    result = await client.chat(endpoint, msgs, max_tokens=settings.probe.max_tokens, temperature=TEMPERATURE,
                               stop=(stop,))
    attempt = attempt_from(result, endpoint, judge(result, stop, start), msgs, case=case)
    return single(case, attempt, result, clock() - began)
