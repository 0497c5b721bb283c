"""The records' files, written and read: results.json of a 400-case round, and a state of 3 x 64 endpoints.

    PYTHONPATH=. .venv/bin/python benchmarks/record_codecs.py [--runs 40]

CPU time (time.process_time, so a loaded machine's waits do not count), median and minimum of
--runs: results.json written (the record to JSON text, as probes/round/record.py writes it) and
read (`read_results` on the decoded JSON), once as written and once with an amount no reply has in
every attempt (each attempt then read field by field); the state written (`written` + json.dumps,
sorted keys, no indentation) and read (`read_state`). Run it on two checkouts to compare them:
on one from before the records were their files' form (7cead69), it writes through `to_json` and
reads the state through `state_from_json`, as that code did.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from core import field_rules, results
from core.results import AttemptResult, CaseResult, RoundResults
from core.results_read import read_results
from core.vocabulary import CONTRACTS, Outcome
from judge.suspension import state as judge_state

# The code before the records were their files' form wrote through to_json (7cead69).
written: Callable[[Any], Any] = getattr(field_rules, "written", lambda r: r.to_json())
read_state: Callable[[Any, str], Any] = getattr(judge_state, "read_state", None) or judge_state.state_from_json
write_state: Callable[[Any], Any] = getattr(judge_state, "state_to_json", written)


def _round(n_cases: int = 400) -> RoundResults:
    full = AttemptResult(outcome=Outcome.PASS, code="pass", reason="language: 6 sentences, all Portuguese (pt)",
                         ttft_s=0.41, total_s=2.3, finish_reason="stop", served_by="Host", excerpt="x" * 300,
                         chars=412, refusal=Outcome.PASS, integrity=Outcome.PASS, decode_tps=41.5,
                         advertised_p50_tps=60.0, advertised_slowest_tps=30.0, usage_reported=True,
                         prompt_tokens=120, billed_usd=2e-05, listed_usd=2e-05)
    cases = [CaseResult(model="m/x", provider=f"host{i // 4}/fp8", contract=CONTRACTS[i % 4], outcome=Outcome.PASS,
                        code="pass", reason="ok", ttft_s=0.41, duration_s=2.3, requests=1, prompt_tokens=120,
                        completion_tokens=160, cost_usd=6.1e-05, served_by="Host",
                        attempts=(full,) if i % 5 else (full, full, full)) for i in range(n_cases)]
    return RoundResults(round_id="r1", started_at=datetime(2026, 12, 5, 8, tzinfo=UTC),
                        finished_at=datetime(2026, 12, 5, 8, 4, tzinfo=UTC), upstream="openrouter",
                        models={"m/x": _model(tuple(sorted({c.provider for c in cases})))}, cases=tuple(cases))


def _model(providers: tuple[str, ...]) -> Any:
    return providers if hasattr(results, "ResultsFile") else results.ModelEntry(providers)


def _state() -> dict[str, Any]:
    providers: dict[str, Any] = {}
    for i in range(64):
        providers[f"host{i}/fp8"] = {
            "failed_streak": i % 2, "clean_streak": 0, "ladder": {"rung": i % 3, "last_suspension_started": None},
            "last_reasons": ["language: fail: x"] * 4, "next_language": "pt", "last_counted_at": "2026-11-29T22:30:00Z",
            "window": {c: ".".join(["pppf"] * 48) for c in CONTRACTS[:4]}, "billing": ".".join(["51200:49800"] * 48),
            "limits": "131072:16384", **({"failing_contracts": ["tools"]} if i % 2 else {}),
            "suspension": {"since": "2026-11-29T22:30:00Z", "until": "2026-11-30T22:30:00Z", "rung": 1,
                           "mode": "observe", "reason": "r"} if i % 8 == 0 else None}
    return {"schema_version": 1, "mode": "observe", "applied_rounds": [f"r{i}" for i in range(100)],
            "last_round": {"round_id": "r99", "started_at": "2026-11-29T22:30:00Z"},
            "models": {f"m/x{k}": providers for k in range(3)}}


def _cpu(runs: int, step: Callable[[], object]) -> str:
    times = []
    for _ in range(runs):
        start = time.process_time()
        step()
        times.append(time.process_time() - start)
    return f"median {statistics.median(times) * 1000:.1f} ms (min {min(times) * 1000:.1f})"


def _odd(doc: dict[str, Any]) -> dict[str, Any]:
    odd = json.loads(json.dumps(doc))
    for case in odd["cases"]:
        for attempt in case["attempts"]:
            attempt["billed_usd"] = 1e308
    return odd


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    runs = parser.parse_args().runs
    record = _round()
    text = json.dumps(written(record), indent=2, ensure_ascii=False) + "\n"
    doc, odd = json.loads(text), _odd(json.loads(text))
    print(f"results.json, 400 cases ({sum(len(c.attempts) for c in record.cases)} attempts, "
          f"{len(text.encode()) // 1024} KiB), CPU time over {runs} runs:")
    print(f"  written:                      {_cpu(runs, lambda: json.dumps(written(record), indent=2))}")
    print(f"  read:                         {_cpu(runs, lambda: read_results(doc))}")
    print(f"  read, an odd bill everywhere: {_cpu(runs, lambda: read_results(odd))}")
    raw = _state()
    state = read_state(raw, "state.json")
    print("state, 3 models x 64 endpoints:")
    print(f"  written:                      {_cpu(runs, lambda: json.dumps(write_state(state), sort_keys=True))}")
    print(f"  read:                         {_cpu(runs, lambda: read_state(raw, 'state.json'))}")


if __name__ == "__main__":
    main()
