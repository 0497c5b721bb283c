"""The audit line is declared once (canary/state/audit.py `AuditLine`): written to the same bytes as
the hand-built dicts before it, read tolerantly (a key this version does not know skipped), a value
of the wrong type named with the file, the line and the dotted key. `audit.read`, the log's one
reader, gives every line back as written (older writers' lines too) and sets a line of another
shape aside, named, reading the rest."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from canary.cli.commands.digest import digest_line
from canary.integrations.notifications.digest import Digest, DigestLine
from canary.state import audit
from core.results import RejectedInput
from judge.suspension.decisions import Decision, read_round_decisions

NOW = datetime(2026, 12, 1, 22, 30, tzinfo=UTC)
# decisions.json files the judge wrote (tests/judge/data/decisions): real decisions, cards and all.
DECISIONS = sorted((Path(__file__).resolve().parents[2] / "judge" / "data" / "decisions").glob("*.json"))


def before(record: dict[str, Any]) -> str:
    """How audit.append wrote a line before the line was declared."""
    return json.dumps(record, sort_keys=True, ensure_ascii=False)


def test_the_fixtures_hold_decisions_with_cards_rungs_and_untils() -> None:
    decisions = [d for p in DECISIONS for d in json.loads(p.read_text())["decisions"]]
    assert {"card", "rung", "until", "weak_evidence"} <= {k for d in decisions for k in d}


@pytest.mark.parametrize("path", DECISIONS, ids=[p.stem for p in DECISIONS])
def test_a_decision_line_is_written_to_the_same_bytes(path: Path) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    decisions = read_round_decisions(doc).decisions
    lines = audit.decision_lines(decisions, round_id=doc["round_id"], mode=doc["mode"], now=NOW)
    expected = [before({"time": "2026-12-01T22:30:00Z", "round_id": doc["round_id"], "mode": doc["mode"], **d})
                for d in doc["decisions"]]
    assert [audit.encoded(line) for line in lines] == expected and len(expected) == len(decisions)


def test_a_command_s_decision_keeps_its_null_round_id() -> None:
    first = next(d for p in DECISIONS for d in read_round_decisions(json.loads(p.read_text())).decisions)
    [line] = audit.decision_lines([first], round_id=None, mode="enforce", now=NOW)
    assert '"round_id": null' in audit.encoded(line)


def test_the_warning_lines_are_written_to_the_same_bytes() -> None:
    [rejected] = audit.rejected_lines([RejectedInput("m/x", "bad tag", "provider: not a tag — ünïcode")],
                                      round_id="r1", mode="observe", now=NOW)
    assert audit.encoded(rejected) == before({
        "time": "2026-12-01T22:30:00Z", "round_id": "r1", "mode": "observe", "model": "m/x", "provider": "bad tag",
        "action": "rejected_input", "rule": "input_validation", "reason": "provider: not a tag — ünïcode",
        "evidence": []})
    lines = (DigestLine("new", "k2", "b"), DigestLine("new", "k1", "a"))
    digest = Digest(now=NOW, lines=lines, observed="", added=lines[:1], gone=())
    assert audit.encoded(digest_line(digest, "observe", delivered_to=1)) == before({
        "time": "2026-12-01T22:30:00Z", "round_id": None, "mode": "observe", "model": "*", "provider": "*",
        "action": "digest_sent", "rule": "digest", "reason": "2 line(s), 1 new, 0 gone; sent to 1 service(s)",
        "keys": ["k1", "k2"], "evidence": []})
    empty = Digest(now=NOW, lines=(), observed="", added=(), gone=())
    assert '"keys": []' in audit.encoded(digest_line(empty, "observe", delivered_to=0))   # an empty list stays


def test_a_line_reads_with_a_key_it_does_not_know_skipped() -> None:
    line = audit.read_line({"time": "2026-12-01T00:00:00Z", "action": "suspend", "rung": 2, "later": {"x": 1}},
                           "audit.jsonl:7")
    assert line.action == "suspend" and line.rung == 2 and not hasattr(line, "later")


@pytest.mark.parametrize(("change", "said"), [
    ({"evidence": [{"contract": "c", "outcome": 3, "reason": "r"}]},
     "audit.jsonl:7: evidence[0].outcome: expected a string, got 3"),
    ({"rung": "2"}, "audit.jsonl:7: rung: expected a whole number or null, got '2'"),
    ({"until": "soon"}, "audit.jsonl:7: until: expected an ISO 8601 time like 2026-11-29T22:30:00Z, got 'soon'"),
    ({"action": ""}, "audit.jsonl:7: action: expected a string of length >= 1, got ''"),
    ({"round_id": 5}, "audit.jsonl:7: round_id: expected a string or null, got 5"),
], ids=["evidence", "rung", "until", "action", "round_id"])
def test_a_value_of_the_wrong_type_is_named_with_the_file_line_and_key(change: dict[str, Any], said: str) -> None:
    with pytest.raises(audit.AuditError) as caught:
        audit.read_line({"time": "2026-12-01T00:00:00Z", "action": "suspend"} | change, "audit.jsonl:7")
    assert str(caught.value) == said


def test_validate_names_a_bad_card_by_line_and_dotted_key(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    good = {"time": "2026-12-01T00:00:00Z", "action": "suspend"}
    path.write_text(before(good) + "\n" + before(good | {"card": [{"contract": "c"}]}) + "\n")
    fails, notes = audit.problems(path)
    assert fails == [f"{path}:2: card[0].failures: required key is missing"] and notes == []


def test_the_reader_gives_back_each_line_as_written(tmp_path: Path) -> None:
    log_path, decisions = tmp_path / "audit.jsonl", list[Decision]()
    for path in DECISIONS:
        doc = json.loads(path.read_text(encoding="utf-8"))
        decisions += read_round_decisions(doc).decisions
        audit.append(log_path, audit.decision_lines(read_round_decisions(doc).decisions, round_id=doc["round_id"],
                                                    mode=doc["mode"], now=NOW))
    log = audit.read(log_path)
    assert [audit.encoded(line) + "\n" for line in log.lines] == log_path.read_text(encoding="utf-8").splitlines(True)
    assert [line.decision() for line in log.lines] == decisions and decisions[0].card  # cards and all
    assert {line.at for line in log.lines} == {NOW} and (log.torn, log.set_aside) == (0, ())


# Lines of older writers, byte for byte: evidence without codes and no cards (the first writer),
# a webhook_failed warning, a null until and rung (the history's decisions carry them), a key of a
# later version. Each reads as it was written (the later key skipped) and encodes to its bytes.
OLDER: list[dict[str, Any]] = [
    {"time": "2026-11-29T22:30:21Z", "round_id": "r1", "mode": "observe", "model": "m/x", "provider": "h/fp8",
     "action": "would_suspend", "rule": "failed_streak", "reason": "2 failed rounds in a row",
     "until": "2026-11-30T22:30:21Z", "rung": 1,
     "evidence": [{"contract": "language", "outcome": "fail", "reason": "leading garbage: ..."}]},
    {"time": "2026-11-29T22:30:21Z", "round_id": "r1", "mode": "observe", "model": "*", "provider": "*",
     "action": "webhook_failed", "rule": "notification", "reason": "webhook not delivered: timeout", "evidence": []},
    {"time": "2026-11-29T22:30:21Z", "round_id": None, "mode": "enforce", "model": "m/x", "provider": "h/fp8",
     "action": "lift", "rule": "manual", "reason": "fixed", "until": None, "rung": None, "evidence": []},
]


def test_lines_of_older_writers_read_identically(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    later = OLDER[0] | {"a_later_key": {"x": 1}}
    path.write_text("".join(before(r) + "\n" for r in [*OLDER, later]), encoding="utf-8")
    log = audit.read(path)
    assert [audit.encoded(line) for line in log.lines] == [before(r) for r in [*OLDER, OLDER[0]]]
    first, warning, lifted, _ = log.lines
    assert (first.until_at, first.rung, first.evidence[0].code) == (datetime(2026, 11, 30, 22, 30, 21, tzinfo=UTC),
                                                                    1, "")
    assert warning.decision() is None and lifted.until_at is None and lifted.rung is None
    assert (log.torn, log.set_aside) == (0, ())


def test_a_line_of_another_shape_is_set_aside_and_named_and_the_rest_still_read(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    good = {"time": "2026-12-01T00:00:00Z", "action": "suspend"}
    path.write_text("\n".join([before(good), before(good | {"rung": "2"}), "[1]", before(good | {"time": "soon"}),
                               before(good | {"action": "restore"}), '{"action": "rest']), encoding="utf-8")
    log = audit.read(path)
    assert [line.action for line in log.lines] == ["suspend", "restore"] and log.torn == 2
    assert log.set_aside == (f"{path}:2: rung: expected a whole number or null, got '2'",
                             f"{path}:4: time: expected an ISO 8601 time like 2026-11-29T22:30:00Z, got 'soon'")
    fails, notes = audit.problems(path)  # canary validate says the same of the same lines
    assert fails == [log.set_aside[0], f"{path}:3: not a JSON object", log.set_aside[1]] and len(notes) == 1
    assert audit.read(tmp_path / "absent.jsonl") == audit.AuditLog(())


@pytest.mark.parametrize("raw", [
    b'{"time": "2026-12-01T00:00:00Z", "action": "a", "reason": "\\ud800"}',   # a lone surrogate escape
    b'{"time": "2026-12-01T00:00:00Z", "action": "a", "later": NaN}',
    b'{"time": "2026-12-01T00:00:00Z", "action": "a", "rung": 123456789012345678901234567890}',
    b'{"time": "2026-12-01T00:00:00Z", "action": "a", "action": "b"}',
    b'{"time": "2026-12-01T00:00:00Z", "action": "a", "reason": "\xff"}',       # not UTF-8
    b'  {"time": "2026-12-01T00:00:00", "action": "a", "rung": 2.0}\r',
    b'{"time": "2026-12-01T00:00:00Z", "action": "a", "evidence": [{"contract": "c", "outcome": "o"}]}',
    b'{"time": "2026-12-01T00:00:00Z", "action": "a", "card": [], "weak_evidence": 1}',
    b'{"time": "2026-12-01T00:00:00Z", "action": "a", "until": ""}',
], ids=["surrogate", "nan", "huge-int", "twice", "not-utf8", "crlf", "evidence", "flag", "empty-until"])
def test_a_line_reads_as_the_long_way_reads_it(raw: bytes, tmp_path: Path) -> None:
    """The reader decodes straight into an AuditLine first; it must agree with json.loads + read_line."""
    path = tmp_path / "audit.jsonl"
    path.write_bytes(raw + b"\n")
    try:
        expected: Any = audit.read_line(json.loads(raw.decode("utf-8")), f"{path}:1")
    except audit.AuditError as exc:
        expected = str(exc)
    except ValueError:
        expected = "torn"
    log = audit.read(path)
    found = log.lines[0] if log.lines else log.set_aside[0] if log.set_aside else "torn" if log.torn else None
    assert found == expected
