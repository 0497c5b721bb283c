"""The chat backend's view: the effective provider.ignore list of a model, kept fresh (docs/workflow.md,
In the chat backend: where the three files come from, how they refresh, what a bad file does).

    from provider_ignore import ProviderIgnore
    ignore = ProviderIgnore("state/canary-state.json", "exclusions/builtin.yaml", "exclusions/incidents.yaml")
    request["provider"] = {"ignore": ignore.get("deepseek/deepseek-chat-v3-0324")}

The only part of this repository the backend installs (provider_ignore/pyproject.toml), with the
modules of core/ it imports vendored inside it (provider_ignore._vendor, imports rewritten at build:
provider_ignore/setup.py); the state file is read for its suspensions only, so neither the judge,
msgspec nor scipy are imported.
"""

from __future__ import annotations

import functools
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from core.layer_files import read_layer
from core.layers import BUILTIN, INCIDENT, LAYERS, SUSPENSION, Exclusion, effective_ignore
from core.store import StoreError

log = logging.getLogger(__name__)


class IgnoreUnavailable(StoreError):
    """A layer of provider.ignore exists but was never read successfully: nothing good to serve."""


@dataclass(frozen=True, slots=True)
class Lookup:
    """provider.ignore for one model from the layers that could be read, and what could not."""

    tags: list[str]
    unavailable: tuple[str, ...] = ()   # one message per file with no good contents yet

    @property
    def complete(self) -> bool:
        return not self.unavailable


def _files(state: str | os.PathLike[str], builtin: str | os.PathLike[str],
           incidents: str | os.PathLike[str]) -> dict[str, Path]:
    """{layer name: file} in LAYERS' order (a layer LAYERS declares that the backend is not given fails here)."""
    given = {BUILTIN: Path(builtin), INCIDENT: Path(incidents), SUSPENSION: Path(state)}
    return {layer.name: given[layer.name] for layer in LAYERS}


class _Watched:
    """One file: its last good parsed value and the stat signature it was read at."""

    def __init__(self, path: Path, load: Callable[[Path], tuple[Exclusion, ...]]) -> None:
        self.path, self.load = path, load
        self.value: tuple[Exclusion, ...] = ()  # a file that does not exist yet holds no entries
        self.signature: tuple[int, int, int] | None = None
        self.problem: str | None = None   # set while the file exists but has no good contents yet

    def refresh(self) -> tuple[Exclusion, ...]:
        try:
            st = os.stat(self.path)
            signature = (st.st_mtime_ns, st.st_size, st.st_ino)
        except FileNotFoundError:
            if self.signature is not None:
                # Mid-checkout or deleted by mistake: routing should not flap open because of it.
                log.warning("canary: %s is missing; serving its last good contents", self.path)
            else:
                self.problem = None  # not created yet: empty is its true contents
            return self.value
        except OSError as exc:
            self._failed(f"cannot stat {self.path} ({exc.strerror})")
            return self.value
        if signature != self.signature:
            try:
                self.value = self.load(self.path)
                self.signature, self.problem = signature, None
            except (StoreError, OSError) as exc:
                # Keep the old signature so the next call retries, and keep serving the last good list.
                self._failed(str(exc))
        return self.value

    def _failed(self, problem: str) -> None:
        if self.signature is not None:
            log.warning("canary: %s; serving its last good contents", problem)
            return
        self.problem = problem
        log.error("canary: %s; it was never read successfully, so there are no good contents to serve: "
                  "provider.ignore is incomplete until it is fixed", problem)


class ProviderIgnore:
    """Thread-safe, self-refreshing effective provider.ignore lists for the chat backend."""

    def __init__(self, state: str | os.PathLike[str], builtin: str | os.PathLike[str],
                 incidents: str | os.PathLike[str]) -> None:
        self._lock = threading.Lock()
        files = _files(state, builtin, incidents)
        self._layers = tuple(_Watched(files[layer.name], functools.partial(read_layer, layer)) for layer in LAYERS)

    def get(self, model: str, now: datetime | None = None) -> list[str]:
        """Provider tags to put in provider.ignore for `model` (sorted; [] when nothing is excluded). IgnoreUnavailable
        when a layer's file exists but was never read: a partial list would route to hosts that were excluded."""
        found = self.lookup(model, now)
        if found.unavailable:
            raise IgnoreUnavailable("provider.ignore is unavailable: " + "; ".join(found.unavailable))
        return found.tags

    def lookup(self, model: str, now: datetime | None = None) -> Lookup:
        """What get() would return, from the readable layers, and the layers that are unavailable."""
        when = now or datetime.now(UTC)
        with self._lock:
            entries = tuple(e for watched in self._layers for e in watched.refresh())
            unavailable = tuple(w.problem for w in self._layers if w.problem)
        return Lookup(effective_ignore(model, entries, when), unavailable)
