"""Fetch the corpus of real recorded OpenRouter exchanges named in tests/data/openrouter-recordings/sources.yaml.

    .venv/bin/python scripts/fetch_recordings.py                 # from raw.githubusercontent.com
    .venv/bin/python scripts/fetch_recordings.py --git charmbracelet/fantasy=/path/to/fantasy.git ...
    .venv/bin/python scripts/fetch_recordings.py --if-missing    # nothing to do when the corpus is there

The recordings are other projects' test cassettes (Apache-2.0 and MIT); the repository keeps only the
list of them (repository, commit, path, sha256, licence), so a clone fetches them once from their
public URLs, or from a local git copy of the repository (`--git owner/name=GIT_DIR`). Each file is
checked against its sha256 before anything is kept, then reduced to what the tests replay: the
chat-completion exchanges, with every header but Content-Type dropped, and refused outright if
anything in it looks like a credential. It is written beside the list, with the source's licence
files, through core/store.py (docs/developing.md, "The recorded corpus").
"""

from __future__ import annotations

import argparse
import hashlib
import re
import subprocess
import sys
import urllib.request
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.store import atomic_write_text  # noqa: E402  (the repository root is put on the path above)

CORPUS = ROOT / "tests" / "data" / "openrouter-recordings"
SOURCES = CORPUS / "sources.yaml"
RAW = "https://raw.githubusercontent.com/{repo}/{commit}/{path}"
KEPT_HEADERS = ("content-type",)
# What a credential looks like in a cassette: an OpenRouter or OpenAI-style key, a bearer token, or a
# header that carries one (the header names are dropped anyway; finding one left means a bug here).
CREDENTIAL = re.compile(r"sk-or-v1-|sk-[A-Za-z0-9]{20,}|Bearer\s+[A-Za-z0-9._\-]{12,}|(?i:\bauthorization\b\s*:)"
                        r"|(?i:\bx-api-key\b)|(?i:\bset-cookie\b)")


class FetchError(Exception):
    """A file could not be fetched, or is not the file the list names."""


def sources(path: Path = SOURCES) -> list[dict[str, Any]]:
    return list(yaml.safe_load(path.read_text(encoding="utf-8"))["sources"])


def source_dir(source: dict[str, Any], corpus: Path = CORPUS) -> Path:
    return corpus / str(source["name"])


def missing(corpus: Path = CORPUS) -> list[Path]:
    """The corpus files the list names that are not on disk."""
    return [source_dir(s, corpus) / f["path"] for s in sources() for f in s["files"]
            if not (source_dir(s, corpus) / f["path"]).is_file()]


def from_url(repo: str, commit: str, path: str) -> bytes:
    url = RAW.format(repo=repo, commit=commit, path=path)
    try:
        with urllib.request.urlopen(url, timeout=30) as resp:  # noqa: S310 (a fixed https URL)
            return bytes(resp.read())
    except OSError as exc:
        raise FetchError(f"{url}: {exc}") from None


def from_git(git_dir: str) -> Callable[[str, str, str], bytes]:
    def read(repo: str, commit: str, path: str) -> bytes:
        proc = subprocess.run(["git", "--git-dir", git_dir, "show", f"{commit}:{path}"], capture_output=True)
        if proc.returncode != 0:
            raise FetchError(f"{git_dir} {commit}:{path}: {proc.stderr.decode(errors='replace').strip()}")
        return proc.stdout
    return read


def is_chat(interaction: dict[str, Any]) -> bool:
    request = interaction.get("request") or {}
    where = str(request.get("uri") or request.get("url") or "")
    return request.get("method") == "POST" and where.endswith("/chat/completions")


def only_content_type(headers: Any) -> Any:
    if not isinstance(headers, dict):
        return headers
    return {k: v for k, v in headers.items() if str(k).lower() in KEPT_HEADERS}


def reduced(raw: bytes, origin: str) -> str:
    """The cassette with its chat exchanges only, each with only its Content-Type headers; refused
    when anything left looks like a credential."""
    cassette = yaml.safe_load(raw.decode("utf-8"))
    kept = []
    for interaction in cassette.get("interactions") or []:
        if not is_chat(interaction):
            continue
        for part in ("request", "response"):
            if isinstance(interaction.get(part), dict) and "headers" in interaction[part]:
                interaction[part]["headers"] = only_content_type(interaction[part]["headers"])
        kept.append(interaction)
    cassette["interactions"] = kept
    text = yaml.safe_dump(cassette, sort_keys=False, allow_unicode=True, width=1 << 20)
    found = CREDENTIAL.search(text)
    if found:
        raise FetchError(f"{origin}: something that looks like a credential ({found.group(0)[:12]}...): not kept")
    note = "# Reduced by scripts/fetch_recordings.py: chat exchanges only, Content-Type headers only."
    return f"# {origin}\n{note}\n{text}"


def fetch(chosen: Iterable[dict[str, Any]], read_for: Callable[[str], Callable[[str, str, str], bytes]],
          corpus: Path = CORPUS) -> int:
    """Fetch, check, reduce and write every file of `chosen`; the number of files written."""
    written = 0
    for source in chosen:
        repo, commit, prefix = str(source["repo"]), str(source["commit"]), str(source["prefix"])
        read = read_for(repo)
        where = source_dir(source, corpus)
        for name in source["licence_files"]:
            atomic_write_text(where / name, read(repo, commit, name).decode("utf-8"))
        for entry in source["files"]:
            path = f"{prefix}/{entry['path']}"
            raw = read(repo, commit, path)
            digest = hashlib.sha256(raw).hexdigest()
            if digest != entry["sha256"]:
                raise FetchError(f"{repo}@{commit}:{path} has sha256 {digest}, the list says {entry['sha256']}")
            origin = f"{repo}@{commit}:{path} ({source['licence']}, see {'/'.join(source['licence_files'])})"
            atomic_write_text(where / entry["path"], reduced(raw, origin))
            written += 1
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--git", action="append", default=[], metavar="OWNER/NAME=GIT_DIR",
                        help="read that repository from a local git directory instead of its public URL")
    parser.add_argument("--if-missing", action="store_true", help="do nothing when every file is already there")
    args = parser.parse_args(argv)
    if args.if_missing and not missing():
        return 0
    local = dict(item.split("=", 1) for item in args.git)

    def read_for(repo: str) -> Callable[[str, str, str], bytes]:
        return from_git(local[repo]) if repo in local else from_url

    try:
        count = fetch(sources(), read_for)
    except FetchError as exc:
        print(f"fetch_recordings: {exc}", file=sys.stderr)
        return 1
    print(f"fetch_recordings: {count} recordings written under {CORPUS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
