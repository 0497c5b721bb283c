"""The last step of a round: no file it wrote holds the API key, whatever put it there.

The client scrubs every upstream string it keeps (probes/http/exchange.py), so this should find
nothing; it exists because only the probe step holds the key: once a round's files leave it
(results.json, discovery.json, JUnit, the Allure results), no later step could scrub them.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from core.key_mask import mask_for
from core.store import atomic_write_bytes
from core.upstream import Upstream


def sweep(paths: Iterable[Path], upstream: Upstream) -> list[Path]:
    """Mask the key in every file under `paths` (files or folders); the files changed. Pieces of
    16 characters or more, any case, hex and base64 are masked too (core/key_mask.py): a step that
    cut upstream text before scrubbing it would leave a piece, not the whole key."""
    if not upstream.api_key:
        return []
    mask, changed = mask_for(upstream.api_key), []
    for root in paths:
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else []
        for file in files:
            data = file.read_bytes()
            masked = mask.in_bytes(data)
            if masked != data:
                atomic_write_bytes(file, masked)
                changed.append(file)
    return changed
