"""Corrupt state and exclusion files: every command refuses, names the file (and line), writes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hostile_support import HALF_HOUR, MODEL, PROVIDERS, T0, Files, fingerprint, iso, seeded

NEXT = T0 + 2 * HALF_HOUR


@pytest.fixture
def f(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Files:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.delenv("CANARY_WEBHOOK_URL", raising=False)
    files = seeded(tmp_path, capsys)
    files.results("next.json", at=NEXT)  # written before the fingerprint: the round a command would apply
    return files


def _state_with(f: Files, edit) -> bytes:  # type: ignore[no-untyped-def]
    doc = json.loads(f.state.read_text(encoding="utf-8"))
    edit(doc)
    return json.dumps(doc).encode()


def _set(path: tuple[str, ...], value: object):  # type: ignore[no-untyped-def]
    def edit(doc: dict) -> None:  # type: ignore[type-arg]
        for key in path[:-1]:
            doc = doc[key.format(model=MODEL, bad=PROVIDERS[0])]
        doc[path[-1]] = value
    return edit


P = ("models", "{model}", "{bad}")
STATE_EDITS = {
    "failed-streak-is-a-string": _set((*P, "failed_streak"), "2"),
    "failed-streak-is-negative": _set((*P, "failed_streak"), -1),
    "clean-streak-is-a-bool": _set((*P, "clean_streak"), True),
    "suspension-is-a-list": _set((*P, "suspension"), []),
    "suspension-until-is-a-number": _set((*P, "suspension", "until"), 5),
    "suspension-until-is-not-a-time": _set((*P, "suspension", "until"), "tomorrow"),
    "suspension-mode-is-unknown": _set((*P, "suspension", "mode"), "panic"),
    "rung-is-a-float": _set((*P, "suspension", "rung"), 1.5),
    "ladder-is-a-number": _set((*P, "ladder"), 5),
    "provider-is-null": _set(P, None),
    "models-is-a-list": _set(("models",), []),
    "applied-rounds-is-a-string": _set(("applied_rounds",), "r1"),
    "last-round-is-a-string": _set(("last_round",), "r1"),
    "mode-is-unknown": _set(("mode",), "sometimes"),
    "schema-version-is-unknown": _set(("schema_version",), 2),
    "schema-version-is-missing": lambda doc: doc.pop("schema_version"),
    "models-is-missing": lambda doc: doc.pop("models"),
    "last-reasons-is-a-string": _set((*P, "last_reasons"), "structured: fail"),
    "providers-is-a-list-of-pairs": lambda doc: doc["models"].update({MODEL: list(doc["models"][MODEL].items())}),
    "provider-tag-is-hostile":
        lambda doc: doc["models"][MODEL].update({"../../etc/passwd": doc["models"][MODEL][PROVIDERS[0]]}),
}
RAW_STATES = {
    "empty-file": b"",
    "whitespace-only": b" \n\t\n",
    "truncated": None,  # the real state cut in half, filled in by the test
    "binary-garbage": bytes(range(256)) * 4,
    "not-utf8": b'{"schema_version": 1, "mode": "\xff\xfe"}',
    "json-null": b"null",
    "json-list": b"[1, 2, 3]",
    "deeply-nested": b"[" * 100_000,
    "huge-number": b'{"schema_version": ' + b"9" * 5000 + b"}",
    "nan": b'{"schema_version": NaN}',
}


def _commands(f: Files) -> dict[str, list[str]]:
    return {
        "judge": ["judge", str(f.root / "reports" / "next.json"), "--now", iso(NEXT), "--no-notify"],
        "ignore": ["ignore", "--model", MODEL, "--now", iso(NEXT)],
        "status": ["status", "--now", iso(NEXT)],
    }


def _refused(f: Files, command: str, broken: Path, *, line: int | None = None) -> str:
    before = fingerprint(f.root)
    code, out, err = f.canary(*_commands(f)[command])
    assert code != 0, out
    assert str(broken) in err, err
    if line is not None:
        assert f"line {line}" in err, err
    assert "Traceback" not in err
    assert fingerprint(f.root) == before
    return err


@pytest.mark.parametrize("command", ["judge", "ignore", "status"])
@pytest.mark.parametrize("name", sorted(STATE_EDITS))
def test_a_state_file_of_the_wrong_shape_is_refused_naming_it(f: Files, name: str, command: str) -> None:
    f.state.write_bytes(_state_with(f, STATE_EDITS[name]))
    _refused(f, command, f.state)


@pytest.mark.parametrize("command", ["judge", "ignore", "status"])
@pytest.mark.parametrize("name", sorted(RAW_STATES))
def test_a_state_file_that_is_not_json_is_refused_naming_it(f: Files, name: str, command: str) -> None:
    raw = RAW_STATES[name]
    if raw is None:
        text = f.state.read_bytes()
        raw = text[: len(text) // 2]
    f.state.write_bytes(raw)
    _refused(f, command, f.state)


def test_a_truncated_state_file_is_refused_with_the_line(f: Files) -> None:
    lines = f.state.read_text(encoding="utf-8").splitlines(keepends=True)
    f.state.write_text("".join(lines[:5]), encoding="utf-8")
    err = _refused(f, "judge", f.state)
    assert "line " in err and "git checkout" in err


TABS = f'"{MODEL}":\n\t- provider: "x/fp8"\n\t  reason: "tab-indented"\n'
BAD_INDENT = f'"{MODEL}":\n  - provider: "x/fp8"\n     reason: "too deep"\n'
DUP_MODEL = f'"{MODEL}":\n  - provider: "x/fp8"\n    reason: "a"\n"{MODEL}":\n  - provider: "y/fp8"\n    reason: "b"\n'
DUP_FIELD = f'"{MODEL}":\n  - provider: "x/fp8"\n    provider: "y/fp8"\n    reason: "which one?"\n'
TOP_LIST = f'- "{MODEL}"\n'
ENTRY_STRING = f'"{MODEL}":\n  - "x/fp8"\n'
PROVIDER_LIST = f'"{MODEL}":\n  - provider: ["x/fp8"]\n    reason: "a list"\n'
PROVIDER_HOSTILE = f'"{MODEL}":\n  - provider: "$(rm -rf ~)"\n    reason: "shell"\n'
UNCLOSED = f'"{MODEL}":\n  - provider: "x/fp8\n    reason: "unclosed quote"\n'
DEEP = "[" * 20_000
# (text, line the message must name, or None when the parser cannot give one); the line is 1-based.
YAML_CASES: dict[str, tuple[str | bytes, int | None]] = {
    "tab-indentation": (TABS, 2),
    "bad-indentation": (BAD_INDENT, 3),
    "duplicate-model-key": (DUP_MODEL, 4),
    "duplicate-field-in-an-entry": (DUP_FIELD, 3),
    "top-level-is-a-list": (TOP_LIST, 1),
    "entry-is-a-string": (ENTRY_STRING, 2),
    "provider-is-a-list": (PROVIDER_LIST, 2),
    "provider-is-a-shell-command": (PROVIDER_HOSTILE, 2),
    "unclosed-quote": (UNCLOSED, None),
    "deeply-nested": (DEEP, None),
    "non-utf8-byte": (f'"{MODEL}":\n  - provider: "x/fp8"\n    reason: "caf'.encode() + b"\xe9" + b'"\n', None),
}
# Where the line moves in incidents.yaml once every entry gains its added_at line.
INCIDENT_LINE_SHIFT = {"duplicate-model-key": 5, "duplicate-field-in-an-entry": 3, "provider-is-a-list": 2,
                       "provider-is-a-shell-command": 2, "bad-indentation": None}
INCIDENT_ONLY = {
    "expires-is-not-a-time": ((f'"{MODEL}":\n  - provider: "x/fp8"\n    reason: "r"\n'
                               '    added_at: "2026-11-29T00:00:00Z"\n    expires: "soon"\n'), 2),
    "added-at-is-missing": (f'"{MODEL}":\n  - provider: "x/fp8"\n    reason: "r"\n', 2),
}


BROKEN = [(name, layer) for name in sorted(YAML_CASES) for layer in ("builtin", "incidents")]
BROKEN += [(name, "incidents") for name in sorted(INCIDENT_ONLY)]


@pytest.mark.parametrize("command", ["judge", "ignore", "status"])
@pytest.mark.parametrize(("name", "layer"), BROKEN, ids=[f"{n}-{layer}" for n, layer in BROKEN])
def test_a_broken_exclusion_file_is_refused_naming_file_and_line(f: Files, name: str, layer: str, command: str) -> None:
    text, line = YAML_CASES.get(name) or INCIDENT_ONLY[name]
    path: Path = getattr(f, layer)
    raw = text if isinstance(text, bytes) else text.encode()
    if layer == "incidents" and name in INCIDENT_LINE_SHIFT:
        # incidents need added_at: one more line per entry, inserted before `reason`
        raw = raw.replace(b"    reason:", b'    added_at: "2026-11-29T00:00:00Z"\n    reason:')
        line = INCIDENT_LINE_SHIFT[name]
    path.write_bytes(raw)
    _refused(f, command, path, line=line)


def test_a_broken_incident_file_is_refused_by_incident_add_too(f: Files) -> None:
    f.incidents.write_text(TABS, encoding="utf-8")
    before = fingerprint(f.root)
    code, _, err = f.canary("incident", "add", "--model", MODEL, "--provider", "x/fp8", "--reason", "r",
                            "--now", iso(NEXT))
    assert code != 0 and str(f.incidents) in err and "line 2" in err
    assert fingerprint(f.root) == before
