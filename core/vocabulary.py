"""The words every layer shares: outcomes, the contracts, the 17 languages, the case id.

Each is defined here once; everything else imports it (docs/ and the tests name these, never copies of them).
"""

from __future__ import annotations

import re
from enum import StrEnum


class Outcome(StrEnum):
    """How one probe case (or one attempt) ended. The string values are results.json's wire format."""

    PASS = "pass"
    FAIL = "fail"
    INCONCLUSIVE = "inconclusive"
    TRANSPORT_ERROR = "transport_error"
    NOT_APPLICABLE = "not_applicable"


# The contracts, in the order the tables show them: the four every model runs, then the optional ones.
# What a verdict's code looks like (judge/replies/verdict.py; the families' StrEnum values, results.json's `code`).
CODE = re.compile(r"[a-z0-9_]{1,40}")

LATENCY, REFUSAL, STRUCTURED, LANGUAGE = "latency", "refusal", "structured", "language"
TOOLS, STOP, FIDELITY = "tools", "stop", "fidelity"
# Optional contracts: run only for the models canary.yaml's `optional_contracts:` names them for.
OPTIONAL_CONTRACTS: tuple[str, ...] = (TOOLS, STOP, FIDELITY)
CONTRACTS: tuple[str, ...] = (LATENCY, REFUSAL, STRUCTURED, LANGUAGE, *OPTIONAL_CONTRACTS)

# The product's 17 interface languages (ISO 639-1), in the language contract's rotation order.
LANGUAGE_NAMES: dict[str, str] = {
    "pt": "Portuguese", "es": "Spanish", "id": "Indonesian", "ko": "Korean", "ja": "Japanese",
    "zh": "Chinese", "en": "English", "fr": "French", "de": "German", "it": "Italian",
    "ru": "Russian", "pl": "Polish", "tr": "Turkish", "vi": "Vietnamese", "th": "Thai",
    "ar": "Arabic", "hi": "Hindi",
}
LANGUAGES: tuple[str, ...] = tuple(LANGUAGE_NAMES)

# Case ids have the fixed form `<model>::<endpoint tag>::<contract>`, e.g.
# `deepseek/deepseek-chat-v3-0324::aurora/fp8::latency`. pytest's `-k` grammar accepts `/`, `:`,
# `-` and `.` inside one word and matches substrings of the id case-insensitively, so `pytest
# probes -k aurora/fp8` selects one endpoint and `-k "aurora and latency"` one case. A model whose
# discovery failed has the one case `<model>::discovery`. The id is the pytest case's only
# parameter, so Allure's historyId (name + params) stays stable across rounds even when the
# rotating language changes.
# The bundled simulator names itself on every response with this header (its value: the scenario),
# so a round is classified by who answers, not by the address: an OpenRouter-compatible proxy on
# localhost is a `custom` upstream, not the simulator (docs/openrouter-wire.md §7).
SIMULATOR_HEADER = "X-Canary-Simulator"

CASE_ID_SEPARATOR = "::"
DISCOVERY = "discovery"


def case_id(model: str, provider: str, contract: str) -> str:
    """The id of one model x endpoint x contract case."""
    return CASE_ID_SEPARATOR.join((model, provider, contract))


def endpoint_id(model: str, provider: str) -> str:
    """The id of one model's endpoint: every case of it starts with this (the xdist scheduling unit)."""
    return CASE_ID_SEPARATOR.join((model, provider))


def discovery_case_id(model: str) -> str:
    """The id of the case standing for a model whose discovery failed."""
    return CASE_ID_SEPARATOR.join((model, DISCOVERY))
