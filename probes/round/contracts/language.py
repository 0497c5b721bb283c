"""Language integrity: a synthetic roleplay prompt in the case's language, judged locally.

The system message names the language ("Always reply in Portuguese."), the persona and the
user's turn are written in it (probes/round/prompts/languages.yaml). judge.replies.language.assess looks for
a full switch, sustained mixing, encoding corruption and stray leading garbage; too short or
ambiguous is inconclusive and stays so.

On an anomaly (the first attempt fails) `probe.language_confirmations` more attempts run at
once, and the majority of all attempts decides: fail when most failed, pass when most passed,
otherwise inconclusive (transport errors and inconclusive attempts are no votes). The case
records `anomaly: true` and every attempt; the judge repeats the language next round.
"""

from __future__ import annotations

from enum import StrEnum

from core.vocabulary import LANGUAGE, Outcome
from judge.replies.verdict import Verdict, inconclusive
from probes.http.records import Classification, Endpoint
from probes.round.cases import Case, ProbedAttempt, ProbedCase
from probes.round.contracts import (
    ChatClient,
    ContractSettings,
    attempt_from,
    clock,
    confirmed,
    prompt,
    strict_majority,
    tally,
)


def messages(language: str) -> list[dict[str, str]]:
    entry = prompt(LANGUAGE)[language]
    return [{"role": "system", "content": f"Always reply in {entry['name']}. {entry['persona']}"},
            {"role": "user", "content": entry["user"]}]


async def probe(client: ChatClient, endpoint: Endpoint, settings: ContractSettings, case: Case) -> ProbedCase:
    language = case.language or "en"
    msgs = messages(language)
    start = clock()

    async def one() -> tuple[ProbedAttempt, bool]:
        result = await client.chat(endpoint, msgs, max_tokens=settings.probe.max_tokens,
                                   temperature=settings.probe.temperature)
        verdict = await settings.judge_language(result.text, language) if result.completed else None
        attempt = attempt_from(result, endpoint, verdict, msgs, case=case)
        return attempt, result.classification is Classification.AUTH_ERROR

    return await confirmed(case, one, settings.probe.language_confirmations, start,
                           anomalous=lambda a: a.outcome is Outcome.FAIL, decide=majority)


class ConfirmationCode(StrEnum):
    """The language contract's own code (judge/replies/verdict.py): its confirmations did not agree."""

    LANGUAGE_UNRESOLVED = "language_unresolved"


def majority(attempts: tuple[ProbedAttempt, ...]) -> Verdict:
    """Strict majority of all attempts; anything else is inconclusive."""
    decided = strict_majority(attempts)
    if decided is not None:
        return decided
    passes = sum(1 for a in attempts if a.outcome is Outcome.PASS)
    return inconclusive(ConfirmationCode.LANGUAGE_UNRESOLVED,
                        f"anomaly unresolved: {tally(attempts)}, {passes} passed (first: {attempts[0].reason})")

