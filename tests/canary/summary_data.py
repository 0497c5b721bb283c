"""Small factories for results.json / decisions.json documents (the ARCHITECTURE.md formats)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from core.results import ModelEntry, RoundResults
from core.results_read import read_case, read_results
from judge.suspension.decisions import RoundDecisions, read_round_decisions

MODEL = "deepseek/deepseek-chat-v3-0324"
CONTRACTS = ("latency", "refusal", "structured", "language")


def case(provider: str, contract: str, outcome: str = "pass", *, model: str = MODEL, reason: str = "ok",
         ttft_s: float | None = 0.4, **extra: Any) -> dict[str, Any]:
    return {"model": model, "provider": provider, "contract": contract, "outcome": outcome,
            "reason": reason, "ttft_s": ttft_s, **extra}


def results(*cases: dict[str, Any], providers: list[str] | None = None, round_id: str = "20261129T223000Z-aaaaaa",
            complete: bool = True, **extra: Any) -> dict[str, Any]:
    tags = providers if providers is not None else sorted({c["provider"] for c in cases})
    models = sorted({c["model"] for c in cases} | {MODEL})
    return {"schema_version": 1, "round_id": round_id, "started_at": "2026-11-29T22:30:00Z",
            "finished_at": "2026-11-29T22:30:21Z", "complete": complete, "incomplete_reason": None,
            "upstream": "simulator", "models": {m: {"providers": tags} for m in models},
            "weak_probes": [], "cases": list(cases), **extra}


def record(*cases: dict[str, Any], **kw: Any) -> RoundResults:
    """The same round as `results`, read through the one reader (what the summary renders)."""
    return read_results(results(*cases, **kw))


def unchecked(*cases: dict[str, Any], **kw: Any) -> RoundResults:
    """The round with its tags NOT checked: what the renderers would get if a hostile tag slipped past
    the reader (read_results sets such a case aside); the renderers must contain it all the same."""
    doc = results(*cases, **kw)
    checked = read_results({**doc, "models": {}, "cases": []})
    return replace(checked, models={m: ModelEntry(tuple(e["providers"])) for m, e in doc["models"].items()},
                   cases=tuple(read_case(c) for c in doc["cases"]))


def healthy(provider: str, **extra: Any) -> list[dict[str, Any]]:
    return [case(provider, c, **extra) for c in CONTRACTS]


def record_of(doc: dict[str, Any]) -> RoundDecisions:
    """A decisions.json document (the defaults filling what a test leaves out) read as the judge's
    record, through its one reader: what every consumer of decisions.json takes."""
    return read_round_decisions({"schema_version": 1, "round_id": "20261129T223000Z-aaaaaa",
                                 "mode": "observe", "now": "2026-11-29T22:31:00Z", **doc})


def decisions(*items: dict[str, Any], mode: str = "observe", gap_minutes: float | None = 30,
              ignore: dict[str, list[str]] | None = None,
              would_ignore: dict[str, list[str]] | None = None) -> RoundDecisions:
    return record_of({"mode": mode, "gap_minutes": gap_minutes, "decisions": list(items),
                      "ignore": ignore or {}, "would_ignore": would_ignore or {}})


def decision(action: str, provider: str, *, model: str = MODEL, reason: str = "two failed rounds",
             rule: str = "failed_streak", **extra: Any) -> dict[str, Any]:
    return {"model": model, "provider": provider, "action": action, "rule": rule, "reason": reason,
            "evidence": [], **extra}
