"""The chat backend started on a corrupt layer fails loudly, never open (issue 18 item 5).

`ProviderIgnore` logged "serving its last good contents" but, with no good contents yet, served an
empty layer: the reviewed exclusions or every suspension silently left provider.ignore, and the
list looked healthy. Now get() raises IgnoreUnavailable naming the file, and lookup() gives the
caller the readable layers' list together with what is unavailable.
"""

from __future__ import annotations

import logging
import os
from datetime import timedelta
from pathlib import Path

import pytest
from hostile_support import MODEL, T0

from canary.state.judge_files import save_state
from judge.suspension.state import JudgeState, ProviderState, Suspension
from provider_ignore import IgnoreUnavailable, ProviderIgnore

BUILTIN = f'"{MODEL}":\n  - provider: b/fp8\n    reason: measured\n'
CORRUPT = {"state": '{"schema_version": 1, "models": [', "builtin": f'"{MODEL}":\n  - provider: [unclosed\n',
           "incidents": f'"{MODEL}":\n  - reason: no provider\n'}


def _files(tmp_path: Path) -> dict[str, Path]:
    paths = {name: tmp_path / f"{name}.{'json' if name == 'state' else 'yaml'}" for name in CORRUPT}
    save_state(paths["state"], JudgeState(models={MODEL: {"s/fp8": ProviderState(
        suspension=Suspension(T0, T0 + timedelta(days=1), 1, "enforce", "2 failed rounds"))}}))
    paths["builtin"].write_text(BUILTIN, encoding="utf-8")
    paths["incidents"].write_text(f'"{MODEL}":\n  - provider: i/fp8\n    reason: outage\n'
                                  '    added_at: "2026-11-29T00:00:00Z"\n', encoding="utf-8")
    return paths


def _ignore(paths: dict[str, Path]) -> ProviderIgnore:
    return ProviderIgnore(paths["state"], paths["builtin"], paths["incidents"])


@pytest.mark.parametrize("layer", sorted(CORRUPT))
def test_a_cold_start_on_a_corrupt_layer_raises_naming_the_file_instead_of_an_empty_layer(
        tmp_path: Path, layer: str, caplog: pytest.LogCaptureFixture) -> None:
    paths = _files(tmp_path)
    paths[layer].write_text(CORRUPT[layer], encoding="utf-8")
    ignore = _ignore(paths)

    with caplog.at_level(logging.ERROR), pytest.raises(IgnoreUnavailable, match=str(paths[layer])):
        ignore.get(MODEL, now=T0)
    assert "no good contents" in caplog.text and "serving its last good contents" not in caplog.text

    found = ignore.lookup(MODEL, now=T0)
    assert not found.complete and str(paths[layer]) in found.unavailable[0]
    expected = {"state": "s/fp8", "builtin": "b/fp8", "incidents": "i/fp8"}
    assert expected[layer] not in found.tags and set(found.tags) == set(expected.values()) - {expected[layer]}


def test_once_the_file_is_fixed_the_full_list_is_served(tmp_path: Path) -> None:
    paths = _files(tmp_path)
    good = paths["builtin"].read_text(encoding="utf-8")
    paths["builtin"].write_text(CORRUPT["builtin"], encoding="utf-8")
    ignore = _ignore(paths)
    with pytest.raises(IgnoreUnavailable):
        ignore.get(MODEL, now=T0)
    paths["builtin"].write_text(good, encoding="utf-8")
    os.utime(paths["builtin"], ns=(10**18, 10**18))
    assert ignore.get(MODEL, now=T0) == ["b/fp8", "i/fp8", "s/fp8"]


def test_a_layer_that_does_not_exist_yet_is_empty_not_unavailable(tmp_path: Path) -> None:
    paths = _files(tmp_path)
    paths["state"].unlink()
    assert _ignore(paths).get(MODEL, now=T0) == ["b/fp8", "i/fp8"]
