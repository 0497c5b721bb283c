"""Reading results.json, `read_results` (for the judge, `canary summary`, `canary probe`'s exit code, the
history, incident excerpts; core/results.py: the record).

Read two ways: the top level strictly by RoundResults' declaration (`read_document`: a document the
judge cannot trust is refused with ResultsError naming the key), each upstream entry in it on its
own and leniently (`read_case`, `lenient_entry`): a case (or a control note) whose model or provider
tag fails the safety pattern, or whose outcome or contract is unknown, is set aside as a RejectedInput (the
judge writes those to the audit log); an attempt that is not an object or has no known outcome is
left out; any other field whose value its declaration does not read reads as its default, so does
an amount of money no real reply has (above MAX_BILL_USD, with a RejectedInput naming it). Free
text is made writable as UTF-8 (lone surrogates from JSON become "?"). docs/file-formats.md tells
each rule.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from core.field_rules import MAX_BILL_USD, is_one_of, lenient_entry, read_document, short_figure, text, writable_text
from core.results import (
    AttemptResult,
    CaseResult,
    ControlNote,
    Incomplete,
    IncompleteKind,
    ModelEntry,
    RejectedInput,
    ResultsError,
    RoundResults,
)
from core.schema import shown
from core.tags import describe_invalid_tag, is_valid_tag
from core.vocabulary import CODE, ContractName, Outcome, catch_all_code

_AMOUNTS = ("billed_usd", "listed_usd")
_OUTCOMES = {o.value: o for o in Outcome}
_CONTRACTS = {c.value: c for c in ContractName}


def read_results(raw: Any, source: str | None = None) -> RoundResults:
    """Decoded results.json data as a round: its top level read by RoundResults' declaration
    (`read_document`: what the judge decides on refuses the file, ResultsError naming the key and
    the file), each of its upstream entries on its own (see the module docstring for what is set aside)."""
    doc = read_document(raw, RoundResults, source=source, error=ResultsError)
    words = text(raw.get("incomplete_reason"))
    if not doc["complete"] and not doc["incomplete"] and words is not None:  # an older file: its words only
        doc["incomplete"] = (Incomplete(IncompleteKind.UNKNOWN, words),)
    rejected: list[RejectedInput] = []
    doc.update(models=_models(doc["models"], rejected, source), cases=_cases(doc["cases"], rejected),
               weak_probes=_control_notes(doc["weak_probes"], "weak_probes", rejected),
               unprobed_controls=_control_notes(doc["unprobed_controls"], "unprobed_controls", rejected))
    return RoundResults(**doc, rejected=tuple(rejected))


def read_case(item: Mapping[str, Any]) -> CaseResult:
    """A case entry whose tags and outcome are known good, every other field read leniently; an
    attempt that is not one is left out."""
    attempts = item.get("attempts")
    read = (read_attempt(raw) for raw in (attempts if isinstance(attempts, list) else []))
    return lenient_entry(item, CaseResult, model=str(item.get("model")), provider=str(item.get("provider")),
                         outcome=_OUTCOMES[str(item.get("outcome"))], code=read_code(item),
                         attempts=tuple(a for a in read if a is not None))


def read_attempt(raw: Any) -> AttemptResult | None:
    """An attempt entry read leniently, or None when it is not one (not an object, no known outcome)."""
    if not isinstance(raw, Mapping) or not is_one_of(raw.get("outcome"), _OUTCOMES):
        return None
    return lenient_entry(raw, AttemptResult, outcome=_OUTCOMES[raw["outcome"]], code=read_code(raw))


def read_code(raw: Mapping[str, Any]) -> str:
    """A case's or attempt's code as written; one that is missing (a schema_version 1 entry, written
    before codes) or not a code reads as its outcome's catch-all: counted, never a crash, and its
    reason is kept as the text a person reads."""
    written_code = raw.get("code")
    if isinstance(written_code, str) and CODE.fullmatch(written_code):
        return written_code
    return catch_all_code(str(raw.get("outcome")))


def _models(raw: Mapping[str, Mapping[str, Any]], rejected: list[RejectedInput],
            source: str | None) -> dict[str, ModelEntry]:
    models: dict[str, ModelEntry] = {}
    for model, entry in raw.items():
        if not is_valid_tag(model):
            rejected.append(RejectedInput(_shown(model), "*", describe_invalid_tag(model), "models"))
            continue
        providers = entry.get("providers")
        if not isinstance(providers, list):
            where = f"{source}: " if source else ""
            raise ResultsError(f"{where}models.{model}.providers: expected a list of endpoint tags, "
                               f"got {shown(providers)}")
        good = []
        for tag in providers:
            if is_valid_tag(tag):
                good.append(tag)
            else:
                rejected.append(RejectedInput(model, _shown(tag), describe_invalid_tag(tag), "models"))
        models[model] = lenient_entry(entry, ModelEntry, providers=tuple(sorted(set(good))))
    return models


def _cases(raw: Sequence[Mapping[str, Any]], rejected: list[RejectedInput]) -> tuple[CaseResult, ...]:
    cases = []
    for i, item in enumerate(raw):
        model, provider = item.get("model"), item.get("provider")
        if not is_valid_tag(model) or not is_valid_tag(provider):
            bad = provider if is_valid_tag(model) else model
            rejected.append(RejectedInput(_shown(model), _shown(provider), describe_invalid_tag(bad)))
            continue
        outcome = item.get("outcome")
        if not is_one_of(outcome, _OUTCOMES):
            rejected.append(RejectedInput(model, provider, f"cases[{i}]: unknown outcome {ascii(outcome)[:40]}"))
            continue
        if not is_one_of(contract := item.get("contract"), _CONTRACTS):
            rejected.append(RejectedInput(model, provider, f"cases[{i}]: unknown contract {ascii(contract)[:40]}"))
            continue
        rejected.extend(RejectedInput(model, provider, note) for note in _absurd_amounts(i, item))
        cases.append(read_case(item))
    return tuple(cases)


def _control_notes(raw: Sequence[Mapping[str, Any]], key: str,
                   rejected: list[RejectedInput]) -> tuple[ControlNote, ...]:
    """The entries of `weak_probes` or `unprobed_controls`."""
    out = []
    for i, item in enumerate(raw):
        model, control, contract = item.get("model"), item.get("control"), item.get("contract")
        if not (is_valid_tag(model) and is_valid_tag(control) and is_one_of(contract, _CONTRACTS)):
            why = "an unknown contract" if is_valid_tag(model) and is_valid_tag(control) else "an unsafe tag"
            rejected.append(RejectedInput(_shown(model), _shown(control), f"{key}[{i}]: {why}", key))
            continue
        out.append(ControlNote(model, ContractName(str(contract)), control,
                               writable_text(item.get("reason", ""))))
    return tuple(out)


def _shown(value: Any) -> str:
    """A tag as it may be written to the audit log: itself when safe, else an escaped excerpt."""
    return value if is_valid_tag(value) else ascii(value)[:80]


def _absurd_amounts(i: int, item: Mapping[str, Any]) -> list[str]:
    """What `amount` leaves out of one case entry as no real bill, by field (a figure above MAX_BILL_USD)."""
    attempts = item.get("attempts")
    fields = [(f"cases[{i}].cost_usd", item.get("cost_usd"))] + [
        (f"cases[{i}].attempts[{n}].{key}", a.get(key))
        for n, a in enumerate(attempts if isinstance(attempts, list) else []) if isinstance(a, Mapping)
        for key in _AMOUNTS]
    # An int compares with a float exactly (no conversion, so no overflow); NaN compares false.
    return [f"{where} {short_figure(value)} is no real bill (above ${MAX_BILL_USD:g}): read as absent"
            for where, value in fields
            if isinstance(value, (int, float)) and not isinstance(value, bool) and value > MAX_BILL_USD]
