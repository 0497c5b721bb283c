"""reports/discovery.json, declared once (probes/round/planning.py `DiscoveryFile`, `RoundPlan`): what a
round writes reads back as the same plan, and one reader (`read_snapshot`) refuses anything else
naming the file, the key and what to do, for `--discovery-snapshot` and `canary validate` alike."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest

from core.field_rules import written
from probes.http.records import Endpoint
from probes.round.planning import (
    DiscoveryFailure,
    DiscoveryFile,
    RoundPlan,
    SnapshotError,
    read_plan,
    read_snapshot,
)

ROOT = Path(__file__).resolve().parents[3]
MODEL = "deepseek/deepseek-chat-v3-0324"


def _endpoint(tag: str, **more: Any) -> Endpoint:
    return Endpoint(model=MODEL, provider=tag, provider_name=tag.split("/")[0].title(), quantization="fp8",
                    supported_parameters=("max_tokens", "tools"), prompt_price=2.7e-07, completion_price=1.1e-06,
                    context_length=163840, max_completion_tokens=None, status=0, **more)


def _plan() -> RoundPlan:
    """A plan with every field set, as a round against the real upstream plans."""
    return RoundPlan.of(
        {MODEL: (_endpoint("deepinfra/fp8", siblings=("deepinfra/turbo",), throughput_p50=35.0,
                           thinks_by_default=False, cache_read_price=1e-08),
                 _endpoint("novita/fp8", service_tier="flex"))},
        failures=(DiscoveryFailure("x/gone", "HTTP 404 from the endpoints listing", auth=False),),
        languages={MODEL: {"deepinfra/fp8": "pt", "novita/fp8": "fr"}}, contracts=("latency", "refusal"),
        controls={MODEL: ("novita/fp8",)}, dropped={MODEL: ("endpoints[2]: no tag",)},
        notes={MODEL: ("a note",)}, optional={MODEL: ("tools",)})


def _saved(path: Path, doc: Any) -> Path:
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_a_saved_plan_reads_back_as_the_same_plan(tmp_path: Path) -> None:
    doc = DiscoveryFile(round_id="20261205T080000Z-1", taken_at="2026-12-05T08:00:00Z", clock="real",
                        upstream="openrouter", base_url="https://openrouter.ai/api/v1", plan=_plan())
    saved = _saved(tmp_path / "discovery.json", msgspec.to_builtins(doc))
    assert read_snapshot(saved) == doc
    assert read_snapshot(saved).plan == _plan()
    assert read_plan(json.loads(json.dumps(written(_plan())))) == _plan()


def test_a_bare_plan_reads_with_none_of_the_rest(tmp_path: Path) -> None:
    doc = read_snapshot(_saved(tmp_path / "plan.json", written(_plan())))
    assert doc.plan == _plan() and doc.upstream is None and doc.taken_at is None


@pytest.mark.parametrize("doc,message", [
    ([], "(top level): expected a mapping, got []"),
    ({"plan": {"models": {}}}, "plan.schema_version: required key is missing"),
    ({"plan": {"schema_version": 2, "models": {}}}, "plan.schema_version: expected one of 1, got 2"),
    ({"plan": {"schema_version": 1, "models": {MODEL: {"endpoints": [{"model": MODEL}]}}}},
     f"plan.models.{MODEL}.endpoints[0].provider: required key is missing"),
    ({"plan": {"schema_version": 1, "models": {MODEL: {"endpoints": "all"}}}},
     f"plan.models.{MODEL}.endpoints: expected a list, got 'all'"),
    ({"schema_version": 1, "models": {MODEL: []}}, f"models.{MODEL}: expected a mapping, got []"),
], ids=["not-an-object", "no-version", "a-later-version", "an-endpoint-without-its-tag", "endpoints-not-a-list",
        "a-bare-plan-of-another-shape"])
def test_a_snapshot_of_another_shape_is_refused_naming_the_key_and_what_to_do(
        tmp_path: Path, doc: Any, message: str) -> None:
    saved = _saved(tmp_path / "discovery.json", doc)
    with pytest.raises(SnapshotError) as refused:
        read_snapshot(saved)
    assert str(refused.value) == f"{saved}: {message}; run a round again to save a new one " \
                                 "(reports/discovery.json), or pass another file"


@pytest.mark.parametrize("endpoints,message", [
    ((_endpoint("../.."),), "entry 0: tag '../..' is not a routing slug"),
    ((_endpoint("aurora/fp8\nx"),), "entry 0: tag 'aurora/fp8\\nx' is not a routing slug"),
    ((_endpoint("<b>aurora</b>"),), "entry 0: tag '<b>aurora</b>' is not a routing slug"),
    ((_endpoint("aurora/fp8"), _endpoint("AURORA/FP8")),
     "entry 1: tag differs only by case from 'aurora/fp8': 'AURORA/FP8'"),
    ((dataclasses.replace(_endpoint("aurora/fp8"), provider_name="Aurora\x1b[2J"),),
     "entry 0: tag 'aurora/fp8': provider_name is missing or not printable"),
], ids=["dot-dot", "newline", "html", "case-twin", "control-in-name"])
def test_a_snapshot_whose_tags_live_discovery_would_refuse_is_refused(
        tmp_path: Path, endpoints: tuple[Endpoint, ...], message: str) -> None:
    # Issue 37: a replayed plan is held to discovery's rules; its tags reach node ids, files and the state.
    saved = _saved(tmp_path / "discovery.json", written(RoundPlan.of({MODEL: endpoints})))
    with pytest.raises(SnapshotError) as refused:
        read_snapshot(saved)
    assert str(refused.value).startswith(f"{saved}: plan.models.{MODEL!r}: {message}"), refused.value


def test_a_snapshot_whose_model_is_no_model_id_is_refused(tmp_path: Path) -> None:
    saved = _saved(tmp_path / "discovery.json", written(RoundPlan.of({"../x": (_endpoint("aurora/fp8"),)})))
    with pytest.raises(SnapshotError, match=r"plan\.models\.'\.\./x': not a model id"):
        read_snapshot(saved)


def test_a_missing_snapshot_is_refused_naming_it(tmp_path: Path) -> None:
    with pytest.raises(SnapshotError, match=r"discovery\.json: no such file; run a round again"):
        read_snapshot(tmp_path / "discovery.json")


def test_pytest_refuses_a_broken_snapshot_with_a_usage_error_not_a_crash(tmp_path: Path) -> None:
    saved = _saved(tmp_path / "discovery.json", {"plan": {"schema_version": 1, "models": {MODEL: {}}}})
    proc = subprocess.run([sys.executable, "-m", "pytest", "probes", "-p", "no:cacheprovider", "-q", "--collect-only",
                           f"--canary-reports={tmp_path / 'r'}", f"--canary-state={tmp_path / 'none.json'}",
                           f"--discovery-snapshot={saved}"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 4, proc.stdout[-2000:] + proc.stderr[-2000:]  # pytest's usage error
    assert f"canary: --discovery-snapshot: {saved}: plan.models.{MODEL}.endpoints: required key is missing" \
        in proc.stderr
    assert "INTERNALERROR" not in proc.stdout + proc.stderr and "Traceback" not in proc.stderr


def _without_an_upstream() -> dict[str, str]:
    return {k: v for k, v in os.environ.items()
            if k not in ("OPENROUTER_API_KEY", "OPENROUTER_BASE_URL", "CANARY_CONFIG", "CANARY_SIMULATOR_SCENARIO")}


def _pytest(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", "probes", "-p", "no:cacheprovider", "-q", *args],
                          cwd=ROOT, env=_without_an_upstream(), capture_output=True, text=True, timeout=300)


def test_a_snapshot_taken_from_the_simulator_replays_against_the_bundled_simulator(tmp_path: Path) -> None:
    taken = _pytest("--collect-only", f"--canary-reports={tmp_path / 'first'}",
                    f"--canary-state={tmp_path / 'none.json'}")
    assert taken.returncode == 0, taken.stdout[-2000:] + taken.stderr[-2000:]
    saved = tmp_path / "first" / "discovery.json"
    assert read_snapshot(saved).upstream == "simulator"
    replay = _pytest(f"--discovery-snapshot={saved}", "-k", "aurora and latency",
                     f"--canary-reports={tmp_path / 'replay'}", f"--canary-state={tmp_path / 'none.json'}")
    assert replay.returncode == 0, replay.stdout[-2000:] + replay.stderr[-2000:]
    assert "probing the bundled simulator" in replay.stdout
    results = json.loads((tmp_path / "replay" / "results.json").read_text(encoding="utf-8"))
    assert [(c["provider"], c["outcome"]) for c in results["cases"]] == [("aurora/fp8", "pass")]


def test_a_snapshot_of_a_real_upstream_does_not_start_the_simulator(tmp_path: Path) -> None:
    doc = DiscoveryFile(upstream="openrouter", plan=_plan())
    saved = _saved(tmp_path / "discovery.json", msgspec.to_builtins(doc))
    replay = _pytest(f"--discovery-snapshot={saved}", "--collect-only", f"--canary-reports={tmp_path / 'r'}",
                     f"--canary-state={tmp_path / 'none.json'}")
    assert "probing the bundled simulator" not in replay.stdout, replay.stdout[-2000:]
