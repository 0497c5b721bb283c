"""Reading the round's results.json files (one per shard) into one RoundResults: the edge of core/results.py.

The record, its checks and the merge of shards are core.results (pure); this module only opens
the files, so every command that reads a round (judge, summary, history, incident excerpts)
reads it the same way and names the file in its errors.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from core.results import RoundResults, merge_shards, read_results
from core.store import StoreError, read_json


def load_round(paths: Sequence[Path]) -> RoundResults:
    """Read, check and merge the shard files; ResultsError/StoreError name the file."""
    shards = []
    for path in paths:
        raw = read_json(Path(path), "results file", "re-run the round or pass the right file")
        if raw is None:
            raise StoreError(f"{path}: no such results file")
        shards.append(read_results(raw, str(path)))
    return merge_shards(shards, [str(p) for p in paths])
