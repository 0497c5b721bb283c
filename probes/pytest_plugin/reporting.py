"""The round's reports as files: results.json (built by probes/round/record.py), JUnit properties, Allure.

Everything here is either pure (`junit_properties`, `categories`) or writes exactly one file
atomically (core/store.py), so a reader never sees half a report. The API key never reaches this
module: nothing here receives Upstream.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import uuid
from collections.abc import Collection, Iterable, Mapping
from pathlib import Path
from typing import Any

from core.field_rules import written
from core.results import ControlNote
from core.store import atomic_write_text
from core.vocabulary import REFUSAL, Outcome, case_id
from probes.round.cases import Case, PlannedCase, ProbedAttempt, ProbedCase
from probes.round.record import write_json


def junit_properties(case: Case, result: ProbedCase) -> list[tuple[str, object]]:
    """Per-case <property> entries of the JUnit XML (values are stringified by pytest): the record's."""
    record = result.record
    props: list[tuple[str, object]] = [
        ("outcome", record.outcome.value), ("reason", record.reason), ("contract", case.contract.value),
        ("provider", case.provider), ("model", case.model), ("control", str(case.control).lower()),
        ("ttft_s", record.ttft_s if record.ttft_s is not None else ""), ("requests", record.requests),
        ("completion_tokens", record.completion_tokens), ("cost_usd", record.cost_usd),
    ]
    if case.language:
        props += [("language", case.language), ("anomaly", str(record.anomaly).lower())]
    return props


class _AttemptFailed(AssertionError):
    """Marks an Allure step failed (allure maps AssertionError to failed)."""


class _AttemptBroken(Exception):
    """Marks an Allure step broken (any other exception)."""


def allure_case(case: PlannedCase, result: ProbedCase | None) -> None:
    """Title, labels, and one step per request with prompt, reply and timings attached."""
    import allure

    dynamic: Any = allure.dynamic  # allure-pytest leaves these functions unannotated
    dynamic.title(case.title)
    dynamic.parent_suite(case.model)
    # A failed discovery has no endpoint and no contract: it is filed as "discovery", host "*".
    provider, suite = (case.provider, case.contract) if isinstance(case, Case) else ("*", case.marker)
    dynamic.suite(suite)
    dynamic.sub_suite(provider)
    for name, value in (("model", case.model), ("provider", provider), ("contract", suite)):
        dynamic.label(name, value)
    if not isinstance(case, Case):
        return
    if case.language:
        dynamic.tag(f"language:{case.language}")
    if case.control:
        dynamic.tag("positive-control")
    if result is None:
        return
    dynamic.description(f"**{result.outcome.value}**: {result.reason}")
    attempts = result.attempts
    for n, attempt in enumerate(attempts, 1):
        label = "request" if len(attempts) == 1 else f"attempt {n} of {len(attempts)}"
        try:
            with allure.step(f"{label}: {attempt.outcome.value} — {attempt.reason[:120]}"):
                allure.attach(json.dumps(list(attempt.extras.prompt), indent=2, ensure_ascii=False), name="prompt",
                              attachment_type=allure.attachment_type.JSON)
                allure.attach(attempt.text or "(empty)", name="reply", attachment_type=allure.attachment_type.TEXT)
                allure.attach(json.dumps(timings(attempt), indent=2), name="timings",
                              attachment_type=allure.attachment_type.JSON)
                answers = attempt.extras.answers
                if answers:  # fidelity: which item types were answered right (the peers judge the rest)
                    allure.attach("\n".join(f"{kind}: {'right' if right else 'WRONG'}" for kind, right in answers),
                                  name="answers", attachment_type=allure.attachment_type.TEXT)
                # A step's status comes from how its block exits: raise to mark the attempt
                # failed (quality) or broken (transport), and swallow it right here.
                if attempt.outcome is Outcome.FAIL:
                    raise _AttemptFailed(attempt.reason)
                if attempt.outcome is Outcome.TRANSPORT_ERROR:
                    raise _AttemptBroken(attempt.reason)
        except (_AttemptFailed, _AttemptBroken):
            pass


def timings(attempt: ProbedAttempt) -> dict[str, Any]:
    """The attempt's record (less its excerpt: the reply is attached whole) and its extras' figures."""
    extras = attempt.extras
    out: dict[str, Any] = {}
    for key, value in written(attempt.record).items():
        if key != "excerpt":
            out[key] = value
        if key == "integrity_reason":  # where the wire facts have always been shown
            out.update({"service_tier": extras.service_tier} if extras.service_tier is not None else {})
            out.update({"notes": list(extras.notes)} if extras.notes else {})
    out.update(prompt_tokens=extras.prompt_tokens, completion_tokens=extras.completion_tokens,
               cost_usd=extras.cost_usd, classification=extras.classification)
    return out


def categories() -> list[dict[str, Any]]:
    """Allure categories; first match wins, and regexes must match the whole message."""
    return [
        {"name": "Positive control not probed (refusal probe unverified)",
         "matchedStatuses": ["broken", "failed", "skipped"],
         "messageRegex": "(?s).*(control not probed|control unverified|probe unverified).*"},
        {"name": "Probe weak (positive control missed)", "matchedStatuses": ["failed", "skipped"],
         "messageRegex": "(?s).*(probe weak|control missed).*"},
        # The tools contract's buckets (OpenRouter's Tool Call Error Rate's), apart from other quality failures.
        {"name": "Tool-call failure", "matchedStatuses": ["failed"],
         "messageRegex": "(?s).*quality failure:.*tools: (markup leaked|empty reply|invalid JSON arguments|"
                         "arguments streamed twice|unknown tool name|schema mismatch|prose instead of a call).*"},
        {"name": "Quality failure", "matchedStatuses": ["failed"], "messageRegex": "(?s).*quality failure:.*"},
        {"name": "Transport error", "matchedStatuses": ["broken"], "messageRegex": "(?s).*transport error:.*"},
        {"name": "Round incomplete", "matchedStatuses": ["broken", "failed"],
         "messageRegex": "(?s).*(discovery|no probe result|OPENROUTER_API_KEY).*"},
        {"name": "Inconclusive", "matchedStatuses": ["skipped"], "messageRegex": "(?s).*inconclusive:.*"},
        {"name": "Not applicable", "matchedStatuses": ["skipped"], "messageRegex": "(?s).*not applicable:.*"},
    ]


def write_allure_run_files(alluredir: Path, round_id: str, environment: Mapping[str, str]) -> None:
    """environment.properties, categories.json, executor.json: once per round."""
    alluredir.mkdir(parents=True, exist_ok=True)
    env_lines = [f"{k}={_prop(v)}" for k, v in environment.items()]
    atomic_write_text(alluredir / "environment.properties", "\n".join(env_lines) + "\n")
    write_json(alluredir / "categories.json", categories())
    executor = {"name": os.environ.get("CANARY_EXECUTOR", "canary"), "type": "canary",
                "buildName": f"canary round {round_id}", "buildOrder": _build_order(),
                "reportName": "canary: OpenRouter provider probes"}
    if os.environ.get("GITHUB_SERVER_URL") and os.environ.get("GITHUB_RUN_ID"):
        executor["buildUrl"] = (f"{os.environ['GITHUB_SERVER_URL']}/{os.environ.get('GITHUB_REPOSITORY', '')}"
                                f"/actions/runs/{os.environ['GITHUB_RUN_ID']}")
    write_json(alluredir / "executor.json", executor)


def _build_order() -> int:
    try:
        return int(os.environ.get("GITHUB_RUN_NUMBER", "0"))
    except ValueError:
        return 0


def _prop(value: str) -> str:
    return str(value).replace("\\", "\\\\").replace("\n", " ")


def write_allure_unprobed(alluredir: Path, unprobed: Iterable[ControlNote], probed_ids: Collection[str]) -> None:
    """One *broken* Allure result per configured control that has no case this round.

    A control that was not discovered or not selected has no pytest item, so nothing else
    would show it in the report; a control probed without a verdict already has its case.
    """
    now_ms = int(time.time() * 1000)
    for u in unprobed:
        unprobed_id = case_id(u.model, u.control, REFUSAL)
        if unprobed_id in probed_ids:
            continue
        history = hashlib.md5(f"control-unprobed::{unprobed_id}".encode()).hexdigest()
        labels = {"parentSuite": u.model, "suite": REFUSAL, "subSuite": u.control, "model": u.model,
                  "provider": u.control, "contract": REFUSAL, "tag": "positive-control"}
        message = (f"control not probed: {u.reason}; refusal passes of {u.model} are inconclusive this "
                   "round (fix `controls` in canary.yaml)")
        result = {
            "uuid": str(uuid.uuid4()), "historyId": history, "testCaseId": history,
            "fullName": f"canary positive control {unprobed_id}", "name": f"{u.control} · refusal (control not probed)",
            "status": "broken", "stage": "finished", "statusDetails": {"message": message},
            "description": message, "start": now_ms, "stop": now_ms,
            "labels": [{"name": k, "value": v} for k, v in labels.items()],
        }
        atomic_write_text(alluredir / f"{result['uuid']}-result.json", json.dumps(result, ensure_ascii=False))
