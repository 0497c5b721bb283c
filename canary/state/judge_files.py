"""The judge's file on disk: state/canary-state.json, read and written.

The state's format is judge/suspension/state.py's records (written by `written`, read by `read_state`);
this module is the I/O around them (core/store.py's atomic writes and careful reads).

The exclusion files people write are read by core/layer_files.py (the layers: core/layers.py).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from core.config import PathSettings
from core.field_rules import written
from core.layer_files import read_layers
from core.layers import PEOPLE_LAYERS, STATE_FIX, Exclusion
from core.store import StoreError, atomic_write_json, read_json
from core.times import fmt_time
from judge.suspension.rules import CLOCK_SKEW
from judge.suspension.state import (
    JudgeState,
    StateError,
    read_state,
    times_after,
)


def load_state(path: Path) -> JudgeState:
    """The state in `path`; an empty state when the file does not exist yet (a writer of it then
    refuses a past-only time after its `now`: refuse_future_times)."""
    raw = read_json(path, "state file", STATE_FIX)
    if raw is None:
        return JudgeState()
    try:
        state = read_state(raw, str(path))
    except StateError as exc:  # the file cannot be read as a state: a StoreError, like a broken JSON
        raise StoreError(str(exc)) from None
    return state


def refuse_future_times(state: JudgeState, path: Path, now: datetime) -> None:
    """StoreError naming the fields of `state` whose past-only times lie after `now` (+ clock skew)."""
    future = times_after(state, now + CLOCK_SKEW)
    if future:
        shown = ", ".join(future[:3]) + (f" and {len(future) - 3} more" if len(future) > 3 else "")
        raise StoreError(
            f"{path}: {shown} lie after now ({fmt_time(now)}): a clock set ahead or a hand edit. Kept, such a "
            "time refuses every later round or freezes a streak until that date. Nothing was changed: restore "
            "the state from the state branch's history, or correct those times")


def load_layers(state: Path, paths: PathSettings) -> tuple[JudgeState, tuple[Exclusion, ...]]:
    """The judge's state (whole) and the entries of the layers people write (StoreError on a bad file)."""
    return load_state(state), read_layers(paths.layer_paths(PEOPLE_LAYERS))


def save_state(path: Path, state: JudgeState) -> None:
    atomic_write_json(path, written(state))
