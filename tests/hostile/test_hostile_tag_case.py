"""Tags that differ only by case (`Iris/fp8` beside `iris/fp8`) are one host, not two.

OpenRouter may match tags as it matches provider names, ignoring case: probed and excluded as two
endpoints, such a pair is counted twice by the capacity floor, and suspending one may remove both.
Discovery refuses the pair as it refuses an exact duplicate, the floor counts it once, and the
exclusion files and `canary incident add` compare tags the same way.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hostile_support import HALF_HOUR, MODEL, T0, files_in, fingerprint, iso

from probes.http.discovery import DiscoveryError, parse_endpoints


def test_discovery_refuses_tags_that_differ_only_by_case() -> None:
    # The simulator only serves lowercase slugs, as OpenRouter's listings do: a hostile listing is
    # given to discovery's parser directly.
    def entry(tag: str) -> dict[str, object]:
        return {"tag": tag, "provider_name": tag.split("/")[0].capitalize(), "supported_parameters": [],
                "pricing": {"prompt": "0", "completion": "0"}}

    listing = {"data": {"endpoints": [entry("iris/fp8"), entry("Iris/fp8"), entry("juniper/fp8")]}}
    with pytest.raises(DiscoveryError, match="differs only by case") as caught:
        parse_endpoints(MODEL, listing)
    assert [e.provider for e in caught.value.endpoints] == ["iris/fp8", "juniper/fp8"]  # the first spelling kept


def test_the_capacity_floor_counts_a_case_twin_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = files_in(tmp_path, capsys)
    hosts = ("iris/fp8", "Iris/fp8", "juniper/fp8")  # two hosts to OpenRouter, three spellings
    for i in range(2):
        at = T0 + i * HALF_HOUR
        path = f.results(f"r{i}.json", {"juniper/fp8": "fail"}, at=at, providers=hosts)
        code, _, err = f.canary("judge", str(path), "--now", iso(at), "--no-notify")
        assert code == 0, err
    decisions = json.loads(f.decisions.read_text(encoding="utf-8"))["decisions"]
    # Suspending juniper would leave one usable host (iris, however it is spelled): below the floor of 2.
    assert [(d["provider"], d["action"]) for d in decisions] == [("juniper/fp8", "floor_held")]


def test_an_exclusion_file_with_two_spellings_of_one_tag_is_refused_naming_the_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = files_in(tmp_path, capsys)
    f.builtin.parent.mkdir(parents=True, exist_ok=True)
    f.builtin.write_text(f'"{MODEL}":\n  - provider: "iris/fp8"\n    reason: "a"\n'
                         f'  - provider: "Iris/fp8"\n    reason: "b"\n', encoding="utf-8")
    code, _, err = f.canary("ignore", "--now", iso(T0))
    assert code == 2 and "line 4" in err and "differs only by case" in err


def test_incident_add_compares_tags_ignoring_case(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = files_in(tmp_path, capsys)
    args = ["incident", "add", "--model", MODEL, "--reason", "outage", "--now", iso(T0)]
    assert f.canary(*args, "--provider", "iris/fp8")[0] == 0
    before = fingerprint(f.root)
    code, _, err = f.canary(*args, "--provider", "Iris/fp8")
    assert code == 2 and "already listed" in err and fingerprint(f.root) == before


