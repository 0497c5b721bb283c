"""Answer fidelity: a few verifiable items drawn from the round's seed, the same for every endpoint.

The items (judge/replies/fidelity.py: arithmetic, reversing words, copying a code, a calendar
fact, sorting) are made from a seed of the round id and the model, so every endpoint of the model
answers the same ones this round, and new ones the next; the truth is computed, never stored.
temperature 0 where the endpoint lists it. One request, and on an anomaly (most answers wrong)
`probe.language_confirmations` more at once, as the language and tools contracts do: a model's
own occasional slip is not confirmed, a broken deployment is.

The probe scores each reply item by item (`items` on each attempt) and passes a reply when most
answers are right; the case passes when the first reply does or when the confirmations outvote
it. A majority of mostly wrong replies is inconclusive here: only the peers can say whether that
is the host or the model, and judge/suspension/fidelity.py decides, over the round's cases. A
reply cut by our max_tokens, or spent on reasoning, records no items.
"""

from __future__ import annotations

from judge.replies import fidelity as items_judge
from judge.replies.fidelity import FidelityCode
from judge.replies.verdict import Outcome, Verdict, inconclusive, passed
from probes.http.records import Classification, Endpoint
from probes.round.cases import Case, ProbedAttempt, ProbedCase
from probes.round.contracts import (
    ChatClient,
    ContractSettings,
    attempt_from,
    clock,
    confirmed,
)

TEMPERATURE = 0.0
SYSTEM = "You are a precise assistant. Answer exactly as asked."


def request(round_id: str, model: str) -> tuple[list[dict[str, str]], tuple[items_judge.Item, ...]]:
    """(messages, the items) of the round's fidelity probe for `model`."""
    items = items_judge.make_items(items_judge.seed_for(round_id, model))
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": items_judge.prompt_text(items)}], items


def verdict(scores: tuple[tuple[str, bool], ...]) -> Verdict:
    right = sum(ok for _, ok in scores)
    wrong = ", ".join(k for k, ok in scores if not ok) or "none"
    tally = f"{right} of {len(scores)} items right (wrong: {wrong})"
    if 2 * right >= len(scores):
        return passed(f"fidelity: {tally}")
    return inconclusive(FidelityCode.FIDELITY_UNJUDGED, f"fidelity: most items wrong, the peers decide: {tally}")


async def probe(client: ChatClient, endpoint: Endpoint, settings: ContractSettings, case: Case) -> ProbedCase:
    msgs, items = request(settings.round_id, case.model)
    start = clock()

    async def one() -> tuple[ProbedAttempt, bool]:
        result = await client.chat(endpoint, msgs, max_tokens=settings.probe.max_tokens, temperature=TEMPERATURE)
        scores: tuple[tuple[str, bool], ...] = ()
        found: Verdict | None = None
        if result.completed and result.finish_reason == "length" and not result.reasoning_only:
            found = inconclusive(FidelityCode.MAX_TOKENS_CUT, f"fidelity: the reply reached max_tokens "
                                                              f"({settings.probe.max_tokens}) before the last answer")
        elif result.completed:
            scores = items_judge.score(result.text, items)
            found = verdict(scores)
        attempt = attempt_from(result, endpoint, found, msgs, case=case)
        if scores and not result.reasoning_only:
            attempt = attempt.with_answers(scores)
        return attempt, result.classification is Classification.AUTH_ERROR

    return await confirmed(case, one, settings.probe.language_confirmations, start,
                           anomalous=mostly_wrong, decide=majority)


def mostly_wrong(attempt: ProbedAttempt) -> bool:
    """A reply that answered most of its items wrongly (the anomaly confirmations weigh)."""
    items = attempt.record.items
    return bool(items) and 2 * sum(o is Outcome.FAIL for _, o in items) > len(items)


def majority(attempts: tuple[ProbedAttempt, ...]) -> Verdict:
    """A strict majority of passing replies passes; of mostly wrong ones, the peers decide (inconclusive)."""
    need = len(attempts) // 2 + 1
    wrong = sum(mostly_wrong(a) for a in attempts)
    passes = sum(a.outcome is Outcome.PASS for a in attempts)
    if passes >= need:
        return passed(f"anomaly not confirmed: {passes} of {len(attempts)} passed (first: {attempts[0].reason})")
    if wrong >= need:
        return inconclusive(FidelityCode.FIDELITY_UNJUDGED,
                            f"{attempts[0].reason} (confirmed: {wrong} of {len(attempts)} mostly wrong)")
    return inconclusive(FidelityCode.FIDELITY_UNRESOLVED,
                        f"fidelity: anomaly unresolved: {wrong} of {len(attempts)} mostly wrong, {passes} passed "
                        f"(first: {attempts[0].reason})")
