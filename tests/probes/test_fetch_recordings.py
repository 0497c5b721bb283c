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
    "sk-or-v1-" + "0123456789abcdef" * 2,   # built here: no key-shaped literal in the repository
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


def test_an_absent_corpus_skips_saying_what_to_run_and_a_present_file_is_replayed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import recorded_server

    monkeypatch.setenv(recorded_server.ENV_VAR, str(tmp_path))
    monkeypatch.setattr(recorded_server, "STUDY_COPIES", tmp_path / "no-study-copies")
    monkeypatch.setattr(recorded_server, "SHARED_CORPUS", tmp_path / "no-shared-corpus")
    recorded_server.corpus.cache_clear()
    try:
        reason = recorded_server.missing_reason()
        assert reason is not None and "scripts/fetch_recordings.py" in reason and str(tmp_path) in reason
        (only,) = recorded_server.cases(lambda it: True)
        assert only.id == "corpus-absent" and only.marks[0].kwargs["reason"] == reason
        with pytest.raises(pytest.skip.Exception, match="fetch_recordings"):
            recorded_server.require_corpus()
        # One listed file present (a copy of a real one, named as the study copies are): it is replayed,
        # nothing of it skipped; the whole-corpus tests still skip.
        entry = next(e for e in recorded_server.listed() if e.path.endswith("errors_raised.yaml"))
        study = tmp_path / "study"
        study.mkdir()
        text = CASSETTE_WITH_ONE_CHAT
        monkeypatch.setattr(recorded_server, "listed",
                            lambda: (recorded_server.Listed(entry.source, entry.path,
                                                            hashlib.sha256(text.encode()).hexdigest()),))
        (study / f"{entry.source}__{Path(entry.path).name}").write_text(text, encoding="utf-8")
        monkeypatch.setattr(recorded_server, "STUDY_COPIES", study)
        recorded_server.corpus.cache_clear()
        assert recorded_server.missing_reason() is None
        (case,) = recorded_server.cases(lambda it: True)
        assert not case.marks and case.values[0].status == 429
        (study / f"{entry.source}__{Path(entry.path).name}").write_text(text + "\n", encoding="utf-8")
        recorded_server.corpus.cache_clear()
        assert recorded_server.missing_reason() is not None  # a study copy that is not the listed file is absent
    finally:
        recorded_server.corpus.cache_clear()


CASSETTE_WITH_ONE_CHAT = """interactions:
- request:
    method: POST
    uri: https://openrouter.ai/api/v1/chat/completions
    parsed_body: {model: openai/o3, messages: [{role: user, content: hi}]}
  response:
    status: {code: 429, message: Too Many Requests}
    headers: {content-type: [application/json]}
    parsed_body: {error: {code: 429, message: Provider returned error, metadata: {provider_name: OpenAI}}}
version: 1
"""
