"""`python -m simulator [--scenario FILE] [--port N] [--seed S] [--round N] [--host H]`."""

from __future__ import annotations

import sys

from simulator.cli import main

if __name__ == "__main__":
    sys.exit(main())
