"""Hidden system prompts: the prompt tokens a host counts for the identical prompt against its peers'
(pure, per model and round; docs/contracts.md, billing honesty per round). The first attempt of each
case is compared: its prompt is the same on every host, confirmations depend on the first reply.
Both thresholds must hold, so neither a short prompt (25 template tokens are a large ratio of 40) nor a
long one (64 tokens a small one) fails on a template.
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
