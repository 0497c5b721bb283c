"""One `canary round` process reads each of the round's files once: the probes' results.json is
parsed once and handed on as the record, the simulator's state is read once through its codec
and handed to the judge, and decisions.json is written, never read back."""

from __future__ import annotations

import builtins
import io
import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from canary.round.local_round import RoundOptions, run_round

MODEL = "acme/roleplay-test"


def endpoint(tag: str, faults: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"tag": tag, "provider_name": tag.split("/")[0].capitalize(),
            "pricing": {"prompt": "0.0000003", "completion": "0.000001"},
            "supported_parameters": ["max_tokens", "temperature", "seed", "response_format", "structured_outputs"],
            "behaviour": {"ttft_ms": 40, "tokens_per_second": 400, "faults": faults or {}}}


# Loaded by the probes' own `pytest probes` process (PYTHONPATH): counts the files it opens to read
# as text, to parse them (its key sweep reads every file of the round as bytes, parsing none).
COUNTING_SITE = """
import atexit, builtins, io, json, os, sys
_open, _reads = io.open, {}
def _counting(file, mode="r", *args, **kwargs):
    opened = _open(file, mode, *args, **kwargs)
    if isinstance(file, (str, os.PathLike)) and not any(m in mode for m in "waxb+"):
        name = os.path.basename(os.fspath(file))
        _reads[name] = _reads.get(name, 0) + 1
    return opened
io.open = builtins.open = _counting
def _report():
    if any(a.startswith("--canary-reports") for a in sys.argv):
        with _open(os.path.join(os.environ["CANARY_TEST_READS"], f"{os.getpid()}.json"), "w") as out:
            json.dump(_reads, out)
atexit.register(_report)
"""


def probes_reads(folder: Path) -> list[dict[str, int]]:
    found = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))]
    for p in folder.glob("*.json"):
        p.unlink()
    return found


def test_one_round_reads_results_json_once_and_never_reads_its_decisions_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(yaml.safe_dump({"name": "reads-once", "keepalive_ms": 50, "models": [{
        "id": MODEL, "name": "Test", "permaslug": MODEL, "endpoints": [
            endpoint("ok/fp8"), endpoint("fine/fp8"), endpoint("schema/fp8", {"schema_violation": {"rate": 1.0}})]}]}),
        encoding="utf-8")
    config = tmp_path / "canary.yaml"
    config.write_text(yaml.safe_dump({
        # No `probe:` key: canary.yaml's thresholds, which no load reaches (a 5 s deadline could).
        "mode": "observe", "models": [MODEL], "contracts": ["structured"],
        "paths": {"reports": str(tmp_path / "reports"), "state": str(tmp_path / "real" / "state.json"),
                  "audit": str(tmp_path / "real" / "audit.jsonl")}}), encoding="utf-8")
    for name in ("OPENROUTER_API_KEY", "OPENROUTER_BASE_URL", "GITHUB_STEP_SUMMARY"):
        monkeypatch.delenv(name, raising=False)
    site, counted = tmp_path / "site", tmp_path / "probes-reads"
    site.mkdir()
    counted.mkdir()
    (site / "sitecustomize.py").write_text(COUNTING_SITE, encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv("CANARY_TEST_READS", str(counted))
    reads: Counter[str] = Counter()
    real_open = io.open

    def counting(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        # Every way a file is opened for reading in this process (Path.read_text opens through io.open).
        opened = real_open(file, mode, *args, **kwargs)
        if isinstance(file, (str, Path)) and not any(m in mode for m in "wax+"):
            reads[Path(file).name] += 1
        return opened

    monkeypatch.setattr(io, "open", counting)
    monkeypatch.setattr(builtins, "open", counting)
    options = RoundOptions(config_path=str(config), scenario=str(scenario), render_report=False)
    for n in range(2):  # the second round also finds a state to read (the first starts without one)
        reads.clear()
        assert run_round(options, echo=lambda _: None) in (0, 1)
        assert reads["results.json"] == 1, reads     # run_probe's; the judge and the summary take its record
        assert reads["decisions.json"] == 0, reads   # the judge returns the record it wrote
        # The simulator's state: once, to place the round on its virtual clock; the judge takes it.
        assert reads["state.json"] == n, reads
        # The probes' process parses the state once (its language plan and the previous limits),
        # and never the results.json it writes.
        [probing] = probes_reads(counted)
        assert probing.get("state.json", 0) == n and probing.get("results.json", 0) == 0, probing
