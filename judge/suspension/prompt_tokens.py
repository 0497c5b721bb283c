"""Hidden system prompts: the prompt tokens a host counts for the identical prompt, against its
peers' (pure, per model and round; issue 22).

Every endpoint of a model gets the same prompt for the same contract (the language contract: for
the same language), so the prompt tokens each reports should agree: the model's tokenizer is
the same on every host, and chat templates differ by a few tokens (a default system line, a date
header: Llama 3.1's adds about 25, Qwen's default system line about 20). A host that counts far
more has put text of its own before ours (a hidden system prompt: billed to the user, and a
quality defect for roleplay, whose persona it overrides).

Per model, round and (contract, language), the first attempt of each case is compared (the
first attempt's prompt is the same on every host; confirmations depend on what the first reply
did):
- the reference is the median of the peers' counts, and needs MIN_PEERS peers;
- a case fails when its count is above the reference x HIDDEN_PROMPT_RATIO *and* at least
  HIDDEN_PROMPT_TOKENS more: both, so neither a short prompt (40 tokens, where 25 template tokens
  are a large ratio) nor a long one (where 64 tokens are a small one) fails on a template;
- the structured and tools contracts are left out: a host that implements json_schema by writing
  the schema into the prompt counts those tokens honestly, and each host renders tool schemas
  with its own chat template (usage reports the provider's native prompt tokens, which
  OpenRouter does not normalise; one tool on Bedrock counted 577 prompt tokens);
- only a case that passed is failed (a case already decided otherwise keeps its reason).
Control cases judge the probe, not the host: neither judged nor used as peers.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import replace
from enum import StrEnum

from core.results import CaseResult
from core.vocabulary import STRUCTURED, TOOLS, Outcome

HIDDEN_PROMPT_RATIO = 1.5
HIDDEN_PROMPT_TOKENS = 64
MIN_PEERS = 2
LEFT_OUT = (STRUCTURED, TOOLS)
HIDDEN_PROMPT = "billing: prompt tokens far above the peers'"


class PromptCode(StrEnum):
    """The code of a prompt counted far above the peers' (judge/replies/verdict.py)."""

    HIDDEN_PROMPT = "hidden_prompt"


def first_prompt_tokens(case: CaseResult) -> int | None:
    """The prompt tokens the case's first attempt reported (None: no usage, or an older file)."""
    return case.attempts[0].prompt_tokens if case.attempts else None


def judge_prompt_tokens(cases: Sequence[CaseResult]) -> tuple[CaseResult, ...]:
    """One model's cases of a round, those counting far more prompt tokens than their peers failed."""
    groups: dict[tuple[str, str | None], list[tuple[int, int]]] = {}
    for i, case in enumerate(cases):
        tokens = first_prompt_tokens(case)
        if tokens is not None and not case.control and case.contract not in LEFT_OUT:
            groups.setdefault((case.contract, case.language), []).append((i, tokens))
    out = list(cases)
    for members in groups.values():
        for i, tokens in members:
            peers = [t for j, t in members if cases[j].provider != cases[i].provider]
            if len(peers) < MIN_PEERS or cases[i].outcome != Outcome.PASS:
                continue
            typical = statistics.median(peers)
            if tokens > typical * HIDDEN_PROMPT_RATIO and tokens - typical >= HIDDEN_PROMPT_TOKENS:
                out[i] = replace(cases[i], outcome=Outcome.FAIL, code=PromptCode.HIDDEN_PROMPT, reason=(
                    f"{HIDDEN_PROMPT}: {tokens} prompt tokens for the identical prompt against the other hosts' "
                    f"median {typical:g} ({len(peers)} hosts; fails above {HIDDEN_PROMPT_RATIO:g} x and "
                    f"{HIDDEN_PROMPT_TOKENS} more): a hidden system prompt?; the probe's own verdict was: "
                    f"{cases[i].reason}"))
    return tuple(out)
