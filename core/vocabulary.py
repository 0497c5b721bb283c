"""The words every layer shares, each defined once: outcomes, the contracts, the 17 languages, the case id."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum


class Outcome(StrEnum):
    """How one probe case (or one attempt) ended. The string values are results.json's wire format."""

    PASS = "pass"
    FAIL = "fail"
    INCONCLUSIVE = "inconclusive"
    TRANSPORT_ERROR = "transport_error"
    NOT_APPLICABLE = "not_applicable"


class ContractName(StrEnum):
    """A contract's name, typed from results.json's `contract` to the files; each is declared in DECLARED."""

    LATENCY = "latency"
    REFUSAL = "refusal"
    STRUCTURED = "structured"
    LANGUAGE = "language"
    TOOLS = "tools"
    STOP = "stop"
    FIDELITY = "fidelity"


LATENCY, REFUSAL, STRUCTURED, LANGUAGE, TOOLS, STOP, FIDELITY = ContractName


@dataclass(frozen=True, slots=True)
class Contract:
    """One contract, declared once: everything that names a contract reads it from here. Adding one touches
    its ContractName, this declaration, its probe (probes/round/contracts/<module>.py), its pure judge
    (judge/replies/), its prompt data and docs/contracts.md."""

    name: ContractName     # the case id's last part and results.json's `contract`
    marker: str            # the pytest marker's description (`pytest probes -m <name>`): probes/pytest_plugin/hooks.py
    optional: bool = False  # run only for the models canary.yaml's `optional_contracts:` names it for
    prompt: str | None = None  # its data file under probes/round/prompts/ (without .yaml); None: built in code
    site_note: str = ""    # what it can and cannot see, under the status page's endpoint table of a model running it
    starts_observed: bool = False  # in rules.observe_contracts by default: would_suspend only, until trusted

    @property
    def module(self) -> str:
        """The probe's module: probes/round/engine.py runs a case of this contract with it."""
        return f"probes.round.contracts.{self.name}"


# What a verdict's code looks like (judge/replies/verdict.py; the families' StrEnum values, results.json's `code`).
CODE = re.compile(r"[a-z0-9_]{1,40}")


def catch_all_code(outcome: str) -> str:
    """The code of an entry written without one (results.json version 1, an older evidence line):
    `pass`, `not_applicable`, or `<outcome>_other` (`fail_other`, `transport_error` -> `transport_other`)."""
    if outcome in (Outcome.PASS, Outcome.NOT_APPLICABLE):
        return outcome
    return "transport_other" if outcome == Outcome.TRANSPORT_ERROR else f"{outcome}_other"


# The contracts, in the order the tables show them: the four every model runs, then the optional ones.
DECLARED: tuple[Contract, ...] = (
    Contract(LATENCY, "time-to-first-token contract", prompt="latency"),
    Contract(REFUSAL, "silent filter / refusal contract", prompt="refusal"),
    Contract(STRUCTURED, "structured output contract", prompt="structured"),
    Contract(LANGUAGE, "language integrity contract", prompt="languages"),
    Contract(TOOLS, "tool-call contract (optional per model: optional_contracts)", optional=True, prompt="tools",
             site_note=("tools: one roleplay request with two tools per round; fails leaked tool-call markup, an empty "
                        "reply, arguments that are not one JSON object or break the schema, an unknown tool name, and "
                        "prose only when every attempt was prose and most peers called. It cannot see tool use beyond "
                        "one turn.")),
    Contract(STOP, "stop-sequence contract (optional per model)", optional=True, prompt="stop",
             site_note=("stop: one count a round sent with a stop string inside it; fails a host that ignores the stop "
                        "string (text after it) or returns it at the end of the reply. A reply that did not count is "
                        "no verdict.")),
    # Observed from the start (issue 23): its false-positive report has yet to support enforcing it.
    Contract(FIDELITY, "answer-fidelity contract (optional per model)", optional=True, starts_observed=True,
             site_note=("fidelity: five items a round with computed answers (arithmetic, reversing words, copying a "
                        "code, a date, sorting), the same for every endpoint, scored against the other endpoints. It "
                        "finds a broken deployment (a wrong template, a broken cache, an ignored parameter: 10-60 "
                        "points worse than its peers); it cannot see the 1-3 points of a good quantization. Item types "
                        "no peer answers right are dropped. Observed only (would_suspend) until its false-positive "
                        "report supports enforcing it.")),
)
CONTRACTS: tuple[ContractName, ...] = tuple(c.name for c in DECLARED)
OPTIONAL_CONTRACTS: tuple[ContractName, ...] = tuple(c.name for c in DECLARED if c.optional)
# rules.observe_contracts' default (core/policy.py).
STARTS_OBSERVED: tuple[ContractName, ...] = tuple(c.name for c in DECLARED if c.starts_observed)


def contract(name: ContractName) -> Contract:
    """The declaration of the contract `name`."""
    return DECLARED[CONTRACTS.index(name)]

# The product's 17 interface languages (ISO 639-1), in the language contract's rotation order.
LANGUAGE_NAMES: dict[str, str] = {
    "pt": "Portuguese", "es": "Spanish", "id": "Indonesian", "ko": "Korean", "ja": "Japanese",
    "zh": "Chinese", "en": "English", "fr": "French", "de": "German", "it": "Italian",
    "ru": "Russian", "pl": "Polish", "tr": "Turkish", "vi": "Vietnamese", "th": "Thai",
    "ar": "Arabic", "hi": "Hindi",
}
LANGUAGES: tuple[str, ...] = tuple(LANGUAGE_NAMES)

# The bundled simulator names itself on every response with this header (its value: the scenario),
# so a round is classified by who answers, not by the address: an OpenRouter-compatible proxy on
# localhost is a `custom` upstream, not the simulator (docs/openrouter-wire.md §7).
SIMULATOR_HEADER = "X-Canary-Simulator"

# Case ids: `<model>::<endpoint tag>::<contract>` (`<model>::discovery` when discovery failed). pytest's
# `-k` takes `/:-.` inside a word, so `-k aurora/fp8` selects one endpoint; the id is the case's only
# parameter, so Allure's historyId stays stable across rounds while the language rotates.
CASE_ID_SEPARATOR = "::"
DISCOVERY = "discovery"


def case_id(model: str, provider: str, contract: ContractName) -> str:
    """The id of one model x endpoint x contract case."""
    return CASE_ID_SEPARATOR.join((model, provider, contract))


def endpoint_id(model: str, provider: str) -> str:
    """The id of one model's endpoint: every case of it starts with this."""
    return CASE_ID_SEPARATOR.join((model, provider))


def discovery_case_id(model: str) -> str:
    """The id of the case standing for a model whose discovery failed."""
    return CASE_ID_SEPARATOR.join((model, DISCOVERY))
