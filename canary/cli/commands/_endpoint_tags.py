"""The endpoint tags discovery has listed, for `canary validate` and `canary incident add` to warn
about an entry naming a tag it never saw (a typo, or a host not served yet: not refused)."""

from __future__ import annotations

import difflib
import sys
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path

from canary.history.query import History
from canary.history.store import history_root
from core.config import Config
from core.errors import InputError
from probes.round.planning import read_snapshot


def known_endpoints(config: Config, now: datetime, snapshot: Path | None = None) -> tuple[dict[str, set[str]], str]:
    """{model: its endpoint tags} as discovery last listed them, and where: the saved snapshot (not a
    simulator's: its hosts are made up) and the round history's last two days; ({}, ...) with neither."""
    path = snapshot or Path(config.paths.reports) / "discovery.json"
    root = history_root(config.paths)
    known: dict[str, set[str]] = {}
    try:
        doc = read_snapshot(path)
        if doc.upstream != "simulator":
            for model, entry in doc.plan.models.items():
                known.setdefault(model, set()).update(e.provider for e in entry.endpoints)
    except InputError:  # no snapshot, or an unreadable one: the controls' check says which
        pass
    try:
        for model, provider in History.open(root, now=now, days=2).endpoints():
            known.setdefault(model, set()).add(provider)
    except InputError as exc:
        print(f"canary: warning: endpoint tags not checked against the round history: {exc}", file=sys.stderr)
    return known, f"{path} or the round history ({root})"


def unlisted(model: str | None, provider: str | None, known: Mapping[str, set[str]], source: str) -> str | None:
    """What to say about an entry's endpoint tag no discovery listed for its model (None: listed, or
    nothing known of the model), naming the closest known tags."""
    tags = known.get(model or "")
    if not tags or provider is None or provider in tags:
        return None
    closest = difflib.get_close_matches(provider, sorted(tags), n=3, cutoff=0)
    return (f"{provider} is not among the {len(tags)} endpoints of {model} seen in {source} "
            f"(closest: {', '.join(closest)}); kept, as a host may be excluded before it is listed")
