"""Histories for the status page tests, made by the real judge from results documents.

`judged_world(root, newest)` writes a canary.yaml (enforce mode, capacity floor 5), people's
exclusion files, and judges four half-hourly rounds with `canary judge` (which records the
history), the newest at `newest`, over eight endpoints that cover every state the page shows:

    aurora/fp8     healthy
    borealis/bf16  degraded: slow (TTFT 7 s against a 10 s threshold)
    cirrus/fp8     suspended: structured fails from round 2 on, with a hostile reason
    dune/fp16      excluded by a person (builtin.yaml)
    ember/fp8      excluded by a person (incidents.yaml, with a hostile reason)
    fjord/fp16     floor held: fails language like cirrus, but the floor keeps it
    gale/fp8       degraded: unsettled (transport errors in the last three rounds)
    haze/fp8       healthy

plus a case with a hostile provider tag, which the judge and the history set aside.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from history_support import MODEL, detailed
from judge_cli_support import HALF_HOUR, iso

from canary.cli.main import main

ENDPOINTS = ("aurora/fp8", "borealis/bf16", "cirrus/fp8", "dune/fp16", "ember/fp8", "fjord/fp16", "gale/fp8",
             "haze/fp8")
HEALTHY, SLOW, SUSPENDED, BUILTIN, INCIDENT, FLOOR, UNSETTLED, HEALTHY2 = ENDPOINTS
ROUNDS = 4
HOSTILE = ('</script><script>alert(1)</script><!-- <img src=x onerror=alert(2)> &amp; "q" \'s\' '
           '\u2028 \x07 {{x}} ${y} <b>bold</b>')
HOSTILE_TAG = "evil/</script><img src=x onerror=alert(3)>"
ROOT = Path(__file__).resolve().parents[2]
ECHARTS = ROOT / "node_modules" / "echarts" / "dist" / "echarts.min.js"


def echarts_or_placeholder(tmp: Path) -> Path:
    """The real ECharts (npm ci), or, for tests that read only the data files, a placeholder."""
    if ECHARTS.is_file():
        return ECHARTS
    placeholder = tmp / "echarts-placeholder" / "dist" / "echarts.min.js"
    placeholder.parent.mkdir(parents=True, exist_ok=True)
    placeholder.write_text("/* not ECharts: npm ci was not run; the data tests do not render */\n", encoding="utf-8")
    return placeholder


def write_world(root: Path, *, mode: str = "enforce") -> Path:
    """canary.yaml and people's exclusion files under root; returns the config path."""
    (root / "exclusions").mkdir(parents=True, exist_ok=True)
    (root / "exclusions" / "builtin.yaml").write_text(
        f'"{MODEL}":\n  - provider: "{BUILTIN}"\n    reason: "known template bug"\n    since: "2026-01-01"\n',
        encoding="utf-8")
    (root / "exclusions" / "incidents.yaml").write_text(
        f'"{MODEL}":\n  - provider: "{INCIDENT}"\n    reason: {json.dumps(HOSTILE)}\n'
        f'    added_at: "2026-01-02T00:00:00Z"\n', encoding="utf-8")
    config = root / "canary.yaml"
    config.write_text(
        f"mode: {mode}\nmodels: [{MODEL}]\nrules:\n  capacity_floor: 5\npaths:\n"
        f"  reports: {root / 'reports'}\n  state: {root / 'state' / 'canary-state.json'}\n"
        f"  audit: {root / 'state' / 'audit.jsonl'}\n  builtin: {root / 'exclusions' / 'builtin.yaml'}\n"
        f"  incidents: {root / 'exclusions' / 'incidents.yaml'}\n  silences: {root / 'exclusions' / 'silences.yaml'}\n"
        f"  maintenance: {root / 'exclusions' / 'maintenance.yaml'}\n",
        encoding="utf-8")
    return config


def round_document(i: int, at: datetime) -> dict[str, Any]:
    """Round i (0-based) of the world."""
    transport = {c: "transport_error" for c in ("latency", "refusal", "structured", "language")}
    spec: dict[str, Any] = {SUSPENDED: "fail" if i >= 1 else "pass",
                            FLOOR: {"language": "fail"} if i >= 1 else "pass",
                            UNSETTLED: transport if i >= ROUNDS - 3 else "pass"}
    doc = detailed(spec, at=at, providers=ENDPOINTS, ttft={SLOW: 7.0 + i / 10},
                   languages={p: ("pt", "ko", "es", "ja")[(i + n) % 4] for n, p in enumerate(ENDPOINTS)})
    for case in doc["cases"]:
        if case["outcome"] == "fail" and case["provider"] == SUSPENDED:
            case["reason"] = f"structured: not valid JSON: {HOSTILE}"
            case["attempts"][0]["reason"] = case["reason"]
    doc["cases"].append({**doc["cases"][0], "provider": HOSTILE_TAG})
    return doc


def judged_world(root: Path, newest: datetime, *, mode: str = "enforce") -> Path:
    """Judge ROUNDS rounds, the last at `newest`; returns the config path."""
    config = write_world(root, mode=mode)
    for i in range(ROUNDS):
        at = newest - (ROUNDS - 1 - i) * HALF_HOUR
        path = root / "reports" / f"round-{i}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(round_document(i, at)), encoding="utf-8")
        code = main(["--config", str(config), "judge", str(path), "--now", iso(at + timedelta(minutes=1)),
                     "--no-notify"])
        assert code == 0, f"canary judge failed on round {i}"
    return config


def build(root: Path, config: Path, out: Path, now: datetime, *extra: str) -> int:
    return main(["--config", str(config), "site", "--out", str(out), "--now", iso(now),
                 "--echarts", str(echarts_or_placeholder(root)), *extra])


def data_block(html: str) -> str:
    """The text of the page's JSON data block (up to the first `</script>` after it)."""
    start = html.index('<script type="application/json" id="canary-data">') + len(
        '<script type="application/json" id="canary-data">')
    return html[start:html.index("</script>", start)]


def real_now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)
