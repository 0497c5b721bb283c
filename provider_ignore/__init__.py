"""The chat backend's view: the effective provider.ignore list of a model, kept fresh.

    from provider_ignore import ProviderIgnore
    ignore = ProviderIgnore("state/canary-state.json", "exclusions/builtin.yaml", "exclusions/incidents.yaml")
    request["provider"] = {"ignore": ignore.get("deepseek/deepseek-chat-v3-0324")}

The three files come from two branches: the exclusion files from main (people's, reviewed), the
state from the judge's own branch (paths.state_branch, default `canary-state`). Keep a copy of
each where the backend can read them, for example a clone refreshed on any schedule:

    git -C /srv/canary pull --ff-only                       # main: exclusions/*.yaml
    git -C /srv/canary fetch --depth=1 origin canary-state  # the judge's state, replaced atomically:
    git -C /srv/canary show FETCH_HEAD:state/canary-state.json > /srv/canary-state.json.tmp \\
        && mv /srv/canary-state.json.tmp /srv/canary-state.json

or `canary fetch-state` in that clone (it writes state/canary-state.json atomically), or the raw
files over HTTPS (a private repository needs a token).

No redeploy is needed: each get() stats the three files and re-reads one only when its
modification time, size or inode changed (commit-back and `canary incident` replace files
atomically, so a new inode always shows). When a file cannot be read or is corrupt, a warning is
logged and the last good contents of that file keep being served; a file that disappears after a
good read keeps serving its last contents (a checkout in progress must not open routing); a file
that does not exist yet counts as empty. A file that exists but has never been read successfully
(a cold start on a corrupt file) has no good contents to serve: an empty list would silently
drop the reviewed exclusions or every suspension and look healthy, so get() raises
IgnoreUnavailable naming the file, and lookup() returns what the readable layers give together
with what is unavailable, for a caller that prefers to decide itself. Expiry is evaluated at
every call, so an incident or suspension ends on time without any file changing.

It is the only part of this repository the backend installs, and on its own: its distribution
(provider_ignore/pyproject.toml: `pip install ./provider_ignore`) depends on PyYAML alone and ships
this package with the five modules of core/ it imports: core/layers.py (the layers as data, their
expiry and merge, shared with the judge), core/layer_files.py (the readers of their files),
core/store.py, core/times.py, core/tags.py (and core/errors.py). The state file is read for its
suspensions only, so neither the judge, its rules, msgspec nor scipy are imported.
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
        """Provider tags to put in provider.ignore for `model` (sorted; [] when nothing is excluded).

        Raises IgnoreUnavailable when a layer's file exists but has never been read successfully:
        an empty or partial list would send traffic to hosts that people or the judge excluded."""
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
