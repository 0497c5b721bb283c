"""tests/proof: the issue's claims, shown end to end through the real commands over real sockets.

The helpers live in benchmarks/_support.py (the long benchmark scripts use the same ones), so
that folder goes on sys.path here. Every test starts real subprocesses (simulator, `pytest
probes`, `canary judge`); none asserts wall-clock times.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
