"""results.json from a broken or hostile round: a clear refusal, or the bad input set aside, never a crash.

Provider tags come from the upstream. By the judge's design (core/tags.py, judge/suspension/planned.py) a
tag that fails the safety pattern is set aside as rejected input: it is recorded in the audit
log in escaped form (ascii(), cut at 80 characters, inside a JSON string) and never becomes a
state key, a file name, a decision, a commit message line or Markdown.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hostile_support import (
    HALF_HOUR,
    MODEL,
    PROVIDERS,
    T0,
    Files,
    fingerprint,
    iso,
    parse_audit,
    results,
    seeded,
)

from canary.history.store import read_span
from canary.state.commit_back import commit_message
from canary.state.results_files import read_decisions

NEXT = T0 + 2 * HALF_HOUR


@pytest.fixture
def f(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Files:
    monkeypatch.delenv("CANARY_WEBHOOK_URL", raising=False)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "step-summary.md"))
    return seeded(tmp_path, capsys)


def _write(f: Files, name: str, raw: bytes) -> Path:
    path = f.root / "reports" / name
    path.write_bytes(raw)
    return path


def _doc(**changes: Any) -> dict[str, Any]:
    doc = results(at=NEXT)
    for key, value in changes.items():
        if value is _DROP:
            doc.pop(key)
        else:
            doc[key] = value
    return doc


_DROP = object()
MALFORMED: dict[str, bytes] = {
    "empty": b"",
    "not-json": b"round went fine",
    "truncated": json.dumps(results(at=NEXT)).encode()[:300],
    "top-level-list": b"[]",
    "null": b"null",
    "binary": bytes(range(256)),
    "deeply-nested": b'{"cases": ' + b"[" * 50_000,
    "schema-version-3": json.dumps(_doc(schema_version=3)).encode(),
    "round-id-missing": json.dumps(_doc(round_id=_DROP)).encode(),
    "round-id-with-newline": json.dumps(_doc(round_id="r1\n- suspend everyone")).encode(),
    "started-at-missing": json.dumps(_doc(started_at=_DROP)).encode(),
    "started-at-garbage": json.dumps(_doc(started_at="yesterday")).encode(),
    "complete-is-a-string": json.dumps(_doc(complete="yes")).encode(),
    "models-missing": json.dumps(_doc(models=_DROP)).encode(),
    "models-providers-not-a-list": json.dumps(_doc(models={MODEL: {"providers": "aurora/fp8"}})).encode(),
    "cases-missing": json.dumps(_doc(cases=_DROP)).encode(),
    "cases-not-a-list": json.dumps(_doc(cases={"a": 1})).encode(),
    "case-not-an-object": json.dumps(_doc(cases=["fail"])).encode(),
    "weak-probes-not-a-list": json.dumps(_doc(weak_probes="ember/fp8")).encode(),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_a_malformed_results_file_is_refused_naming_it_and_nothing_is_written(f: Files, name: str) -> None:
    path = _write(f, "bad.json", MALFORMED[name])
    before = fingerprint(f.root)
    code, _, err = f.canary("judge", str(path), "--now", iso(NEXT))
    assert code == 2 and str(path) in err and "Traceback" not in err
    assert fingerprint(f.root) == before


def test_unknown_outcomes_are_set_aside_and_the_round_still_counts(f: Files) -> None:
    doc = results({PROVIDERS[1]: "exploded"}, at=NEXT)
    code, _, _ = f.canary("judge", str(_write(f, "r.json", json.dumps(doc).encode())), "--now", iso(NEXT))
    assert code == 0
    rejected = [a for a in parse_audit(f.audit) if a["action"] == "rejected_input"]
    assert [(a["provider"], "unknown outcome" in a["reason"]) for a in rejected] == [(PROVIDERS[1], True)]
    state = json.loads(f.state.read_text())
    assert state["models"][MODEL][PROVIDERS[1]]["failed_streak"] == 0  # missing a contract: frozen


HOSTILE_TAGS = {
    "slash-climb": "../../state/canary-state.json",
    "absolute-path": "/etc/passwd",
    "dot-dot-inside": "aurora/..",
    "newline": "aurora/fp8\n- suspend borealis/bf16",
    "carriage-return": "aurora/fp8\rborealis",
    "markdown-pipe": "aurora|fp8 | injected | cell",
    "markdown-link": "[click](https://evil.example)",
    "backticks": "`aurora`/fp8",
    "shell-subst": "$(rm -rf ~)",
    "shell-backtick": "a`reboot`",
    "shell-semicolon": "a;rm -rf /",
    "very-long": "a" * 10_000,
    "rtl-override": "aurora/\u202efp8",
    "zero-width": "aurora\u200b/fp8",
    "nul-byte": "aurora\x00fp8",
    "leading-dash": "--force",
    "space": "aurora fp8",
    "lone-surrogate": "aurora/\ud800",
    "empty": "",
}


def _hostile_round(tag: str, at: Any, *, round_id: str | None = None) -> dict[str, Any]:
    doc = results({PROVIDERS[0]: "pass"}, at=at, round_id=round_id)
    doc["models"][MODEL]["providers"].append(tag)
    doc["cases"] += [{"model": MODEL, "provider": tag, "contract": c, "outcome": "fail", "reason": f"{c} broke",
                      "control": False} for c in ("latency", "refusal", "structured", "language")]
    doc["weak_probes"] = [{"model": MODEL, "contract": "refusal", "control": tag, "reason": "control passed"}]
    doc["cases"].append({"model": tag, "provider": PROVIDERS[1], "contract": "latency", "outcome": "fail",
                         "reason": "hostile model id", "control": False})
    return doc


@pytest.mark.parametrize("name", sorted(HOSTILE_TAGS))
def test_a_hostile_provider_tag_is_set_aside_and_reaches_no_file_name_state_markdown_or_commit(
        f: Files, name: str) -> None:
    tag = HOSTILE_TAGS[name]
    files_before = set(fingerprint(f.root))
    for i in range(3):  # three failed rounds: a trusted tag would have been suspended by now
        at = NEXT + i * HALF_HOUR
        raw = json.dumps(_hostile_round(tag, at)).encode()  # ensure_ascii: a lone surrogate stays an escape
        code, out, err = f.canary("judge", str(_write(f, f"h{i}.json", raw)), "--now", iso(at))
        assert code == 0, err
    new_files = set(fingerprint(f.root)) - files_before
    round_file = re.compile(r"state/history/rounds/\d{4}-\d\d(/\d\d(/\d{6}Z-[0-9a-f]{12}\.xz)?)?")
    history = {n for n in new_files if round_file.fullmatch(n)}
    assert new_files - history <= {"reports/h0.json", "reports/h1.json", "reports/h2.json", "step-summary.md"}
    recorded = read_span(f.state.parent / "history").rounds
    assert sum(n.endswith(".xz") for n in history) == 3  # each judged round kept, under a name of our own
    assert all(tag not in r.columns["model"] + r.columns["provider"] for r in recorded)

    state = json.loads(f.state.read_text(encoding="utf-8"))
    assert set(state["models"]) == {MODEL} and tag not in state["models"][MODEL]
    decisions = json.loads(f.decisions.read_text(encoding="utf-8"))
    assert all(d["provider"] != tag and d["model"] != tag for d in decisions["decisions"])
    assert tag not in decisions["ignore"][MODEL] and tag not in decisions["would_ignore"][MODEL]

    audit = parse_audit(f.audit)  # every line parses
    rejected = [a for a in audit if a["action"] == "rejected_input"]
    assert len(rejected) == 3 * 7  # per round: the discovered tag, its 4 cases, the weak probe, the model-id case
    assert all(a["provider"] != tag and a["model"] != tag for a in rejected)
    assert all(a["provider"] == ascii(tag)[:80] for a in rejected if a["model"] == MODEL)
    raw_audit = f.audit.read_bytes()
    for ch in {c for c in tag if (not c.isascii() or not c.isprintable()) and c != "\n"}:
        assert ch.encode("utf-8", "surrogatepass") not in raw_audit
    assert max(len(line) for line in raw_audit.splitlines()) < 2_000
    assert raw_audit.count(b"\n") == len(audit)  # a newline in a tag never splits a record

    summary = (f.root / "step-summary.md").read_text(encoding="utf-8") if (f.root / "step-summary.md").exists() else ""
    assert tag not in summary or tag == ""
    message = commit_message(read_decisions(f.decisions))
    assert tag not in message or tag == ""
    assert "\u202e" not in out and "\x00" not in out


def test_a_surrogate_or_control_characters_in_a_reason_do_not_break_the_files(f: Files) -> None:
    doc = results({PROVIDERS[1]: "fail"}, at=NEXT)
    for c in doc["cases"]:
        c["reason"] = "bad \ud800 bytes \x00 and \u202e rtl\n| `md` $(rm -rf ~)"
    code, _, err = f.canary("judge", str(_write(f, "r.json", json.dumps(doc).encode())), "--now", iso(NEXT))
    assert code == 0, err
    parse_audit(f.audit)
    state = json.loads(f.state.read_text(encoding="utf-8"))
    assert state["models"][MODEL][PROVIDERS[1]]["failed_streak"] == 1
    json.loads(f.decisions.read_text(encoding="utf-8"))


def test_hostile_tags_are_refused_by_the_commands_people_use(f: Files) -> None:
    before = fingerprint(f.root)
    for tag in ("$(rm -rf ~)", "../x", "a\nb", "a|b"):
        for args in (["incident", "add", "--model", MODEL, "--provider", tag, "--reason", "r"],
                     ["incident", "add", "--model", tag, "--provider", PROVIDERS[0], "--reason", "r"],
                     ["lift", "--model", MODEL, "--provider", tag, "--reason", "r"]):
            code, _, err = f.canary(*args, "--now", iso(NEXT))
            assert code == 2 and "Traceback" not in err
    assert fingerprint(f.root) == before
