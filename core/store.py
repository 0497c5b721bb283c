"""Canary's file I/O at its lowest: atomic writes, and reading text and JSON with clear errors.

Every file canary writes goes through here, so a reader (the chat backend, a person, git) never sees
half a file; a read that fails raises StoreError naming the file, the line when known, and what to do.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from core.errors import InputError


class StoreError(InputError):
    """A file canary refuses to read or write; the message says which, where, and what to do."""


def atomic_write_text(path: Path, text: str) -> None:
    """Replace `path` with `text` as UTF-8, no newline translation, atomically (atomic_write_bytes)."""
    atomic_write_bytes(Path(path), text.encode("utf-8"))


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Replace `path` with `data` atomically (temp file in the same dir, fsync, os.replace)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def _fsync_dir(directory: Path) -> None:
    # Makes the rename itself durable; not every platform lets a directory be opened.
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_json(path: Path, data: Any) -> None:
    """Write JSON deterministically (sorted keys, 2-space indent, final newline): no-op runs give no diff."""
    atomic_write_text(path, json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n")


def read_text(path: Path, what: str) -> str | None:
    """The file's text as written (CRLF kept: an editor writes it back so), or None when it does not exist."""
    try:
        with Path(path).open(encoding="utf-8", newline="") as handle:
            return handle.read()
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        raise StoreError(f"{path}: is not UTF-8 text; restore the {what} from git (git checkout -- {path})") from None
    except OSError as exc:
        raise StoreError(f"{path}: cannot be read ({exc.strerror}); check its permissions") from None


def read_json(path: Path, what: str, fix: str) -> Any | None:
    """Decoded JSON, or None when the file does not exist (a file holding `null` is refused)."""
    text = read_text(path, what)
    if text is None:
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise StoreError(f"{path}: line {exc.lineno} column {exc.colno}: the {what} is not valid JSON "
                         f"({exc.msg}); {fix}. Nothing was written.") from None
    except (ValueError, RecursionError) as exc:
        # Valid JSON syntax that Python refuses: a number over the int digit limit, nesting too deep.
        problem = "nested too deeply" if isinstance(exc, RecursionError) else str(exc).split(";")[0]
        raise StoreError(f"{path}: the {what} cannot be read ({problem}); {fix}. Nothing was written.") from None
    if data is None:
        # `null` must not read as "no file yet": for the state that would silently drop every suspension.
        raise StoreError(f"{path}: the {what} holds JSON null instead of an object; {fix}. Nothing was written.")
    return data


