"""The last step of a round: no file it wrote holds the API key, whatever put it there.

The client scrubs every upstream string it keeps (probes/http/exchange.py), so this should find
nothing; it exists because only the probe step holds the key: once a round's files leave it
(results.json, discovery.json, JUnit, the Allure results), no later step could scrub them.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from core.store import atomic_write_bytes
from core.upstream import MASK, Upstream


def sweep(paths: Iterable[Path], upstream: Upstream) -> list[Path]:
    """Replace the key by the mask in every file under `paths` (files or folders); the files changed."""
    if not upstream.api_key:
        return []
    key, changed = upstream.api_key.encode(), []
    for root in paths:
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else []
        for file in files:
            data = file.read_bytes()
            if key in data:
                atomic_write_bytes(file, data.replace(key, MASK.encode()))
                changed.append(file)
    return changed
