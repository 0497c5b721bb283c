"""scripts/fetch_recordings.py: a recording is kept only as listed (sha256), reduced, and without credentials."""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


def script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fetch_recordings", ROOT / "scripts" / "fetch_recordings.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["fetch_recordings"] = module
    spec.loader.exec_module(module)
    return module


def cassette(headers: dict[str, Any], body: str = '{"choices": []}') -> bytes:
    return yaml.safe_dump({"version": 2, "interactions": [
        {"request": {"method": "POST", "url": "https://openrouter.ai/api/v1/chat/completions", "body": "{}",
                     "headers": headers},
         "response": {"code": 200, "body": body, "headers": {"Content-Type": ["application/json"]}}},
        {"request": {"method": "GET", "url": "https://openrouter.ai/api/v1/models", "headers": {}},
         "response": {"code": 200, "body": "[]", "headers": {}}},
    ]}).encode()


def source(raw: bytes) -> dict[str, Any]:
    return {"name": "made-up", "repo": "acme/cassettes", "commit": "0" * 40, "prefix": "testdata",
            "licence": "MIT", "licence_files": ["LICENSE"],
            "files": [{"path": "one.yaml", "sha256": hashlib.sha256(raw).hexdigest()}]}


def reader(files: dict[str, bytes]) -> Any:
    return lambda repo: (lambda _repo, _commit, path: files[path])


def test_a_listed_recording_is_written_with_its_chat_exchange_and_content_type_only(tmp_path: Path) -> None:
    fetch = script()
    raw = cassette({"Content-Type": ["application/json"], "User-Agent": ["acme/1.0"], "Host": ["openrouter.ai"]})
    written = fetch.fetch([source(raw)], reader({"LICENSE": b"MIT licence text", "testdata/one.yaml": raw}),
                          corpus=tmp_path)
    assert written == 1
    kept = yaml.safe_load((tmp_path / "made-up" / "one.yaml").read_text(encoding="utf-8"))
    (only,) = kept["interactions"]
    assert only["request"]["headers"] == {"Content-Type": ["application/json"]}
    assert (tmp_path / "made-up" / "LICENSE").read_text(encoding="utf-8") == "MIT licence text"
    assert (tmp_path / "made-up" / "one.yaml").read_text(encoding="utf-8").startswith(
        "# acme/cassettes@" + "0" * 40 + ":testdata/one.yaml (MIT")


def test_a_recording_that_is_not_the_listed_file_is_refused(tmp_path: Path) -> None:
    fetch = script()
    raw = cassette({"Content-Type": ["application/json"]})
    listed = source(raw)
    with pytest.raises(fetch.FetchError, match="sha256"):
        fetch.fetch([listed], reader({"LICENSE": b"x", "testdata/one.yaml": raw + b"# changed\n"}), corpus=tmp_path)
    assert not (tmp_path / "made-up" / "one.yaml").exists()


@pytest.mark.parametrize("leak", [
    "sk-or-v1-0123456789abcdef0123456789abcdef",
    "Bearer abcdefghijklmnopqrstuvwxyz",
    "authorization: secret",
], ids=["openrouter-key", "bearer-token", "authorization-header"])
def test_a_recording_carrying_a_credential_is_not_kept(tmp_path: Path, leak: str) -> None:
    fetch = script()
    raw = cassette({"Content-Type": ["application/json"]}, body=f'{{"note": "{leak}"}}')
    with pytest.raises(fetch.FetchError, match="credential"):
        fetch.fetch([source(raw)], reader({"LICENSE": b"x", "testdata/one.yaml": raw}), corpus=tmp_path)
    assert not (tmp_path / "made-up" / "one.yaml").exists()


def test_every_listed_source_names_its_repository_commit_and_licence() -> None:
    for entry in script().sources():
        assert entry["repo"].count("/") == 1 and len(entry["commit"]) == 40 and entry["licence"]
        assert "LICENSE" in entry["licence_files"] and entry["files"]
        assert all(len(f["sha256"]) == 64 for f in entry["files"])


def test_a_missing_corpus_fails_the_recorded_tests_saying_what_to_run(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import recorded_server

    monkeypatch.setenv(recorded_server.ENV_VAR, str(tmp_path))
    reason = recorded_server.missing_reason()
    assert reason is not None and "scripts/fetch_recordings.py" in reason and str(tmp_path) in reason
    (only,) = recorded_server.cases(lambda it: True)
    assert only.id == "corpus-missing" and not only.marks  # no skip mark: the case runs, and fails
    with pytest.raises(pytest.fail.Exception, match="fetch_recordings"):
        only.values[0].request  # noqa: B018  (any use of the missing case fails)
    with pytest.raises(pytest.fail.Exception, match="fetch_recordings"):
        recorded_server.require_corpus()
