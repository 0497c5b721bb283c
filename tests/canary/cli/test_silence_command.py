"""Silences through the public commands: `canary silence add|list|expire`, `validate`, `status`, and
what they change (the Apprise message, over a real socket) and never change (the judgement)."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from judge_cli_support import HALF_HOUR, MODEL, T0, Files, files_in, iso
from notify_receivers import receiving

from canary.state.silences import add_silence, expire_silences, load_silences, parse_silences
from core.store import StoreError
from judge.suspension.silences import CLOCK_SKEW, MAX_SILENCE, Silence, silence_for

BAD = "cirrus/fp8"
HOSTILE = "vendor <img src=x onerror=alert(1)> [ticket](http://evil.example) @everyone | cell\nline two"
HEADER = "# Silences: a person's header comment\n# keep it\n"


@pytest.fixture
def f(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Files:
    files = files_in(tmp_path, capsys)
    files.silences.parent.mkdir(parents=True, exist_ok=True)
    files.silences.write_text(HEADER, encoding="utf-8")
    return files


def _judge_two_failed_rounds(f: Files) -> None:
    for i in range(2):
        at = T0 + i * HALF_HOUR
        assert f.canary("judge", str(f.results(f"r{i}.json", {BAD: "fail"}, at=at)), "--now", iso(at),
                        "--no-notify")[0] == 0


def test_add_list_expire_keep_the_persons_lines_and_list_what_is_in_force(f: Files) -> None:
    code, out, _ = f.canary("silence", "add", "--model", MODEL, "--provider", BAD, "--until", "6h",
                            "--reason", "vendor ticket 4411", "--author", "alice", "--now", iso(T0))
    assert code == 0 and "commit it to main" in out
    text = f.silences.read_text()
    assert text.startswith(HEADER)
    [s] = load_silences(f.silences)
    assert (s.model, s.provider, s.until, s.author, s.added_at) == (MODEL, BAD, T0 + 6 * HALF_HOUR * 2, "alice", T0)
    code, out, _ = f.canary("silence", "list", "--now", iso(T0 + HALF_HOUR))
    assert code == 0 and f"{BAD} of {MODEL}" in out and "by alice: vendor ticket 4411" in out
    assert f.canary("validate")[0] == 0
    code, out, _ = f.canary("silence", "expire", "--model", MODEL, "--provider", BAD, "--now", iso(T0 + HALF_HOUR))
    assert code == 0 and "expired 1 silence" in out
    [ended] = load_silences(f.silences)
    assert ended.until == T0 + HALF_HOUR and f.silences.read_text().startswith(HEADER)
    assert "no silence in force" in f.canary("silence", "list", "--now", iso(T0 + HALF_HOUR))[1]
    assert "(expired)" in f.canary("silence", "list", "--all", "--now", iso(T0 + HALF_HOUR))[1]


def test_a_silence_ends_by_itself_at_until(f: Files) -> None:
    f.canary("silence", "add", "--model", MODEL, "--until", iso(T0 + HALF_HOUR), "--reason", "r", "--author", "bob",
             "--now", iso(T0))
    assert "every endpoint of" in f.canary("silence", "list", "--now", iso(T0 + HALF_HOUR / 2))[1]
    assert "no silence in force" in f.canary("silence", "list", "--now", iso(T0 + HALF_HOUR))[1]
    code, _, err = f.canary("silence", "expire", "--model", MODEL, "--now", iso(T0 + HALF_HOUR))
    assert code == 2 and "no active silence" in err


@pytest.mark.parametrize(("until", "problem"), [
    ("2026-11-29T21:00:00Z", "is not after now"),
    ("31d", "at most 30 days"),
    ("soon", "--until"),
])
def test_add_refuses_a_bad_until_and_writes_nothing(f: Files, until: str, problem: str) -> None:
    code, _, err = f.canary("silence", "add", "--model", MODEL, "--until", until, "--reason", "r", "--author", "a",
                            "--now", iso(T0))
    assert code == 2 and problem in err and f.silences.read_text() == HEADER


@pytest.mark.parametrize(("entry", "problem", "line"), [
    ('- model: "m/x"\n  until: "2026-12-01T00:00:00Z"\n  reason: "r"\n  added_at: "2026-11-30T00:00:00Z"\n',
     "author", 3),
    ('- model: "m/x"\n  until: "2027-02-01T00:00:00Z"\n  reason: "r"\n  author: "a"\n'
     '  added_at: "2026-11-30T00:00:00Z"\n', "at most 30 days", 3),
    ('- model: "m/x"\n  until: "tomorrow"\n  reason: "r"\n  author: "a"\n  added_at: "2026-11-30T00:00:00Z"\n',
     "is not an ISO 8601 time", 3),
    ('- model: "m/x"\n  provider: "bad tag!"\n  until: "2026-12-01T00:00:00Z"\n  reason: "r"\n  author: "a"\n'
     '  added_at: "2026-11-30T00:00:00Z"\n', "provider", 3),
    ('- model: "m/x"\n  until: "2026-12-01T00:00:00Z"\n  reason: "r"\n  author: "a"\n'
     '  added_at: "2026-11-30T00:00:00Z"\n  mute: all\n', "mute: unknown key", 8),
])
def test_validate_names_the_line_of_a_bad_silence(f: Files, entry: str, problem: str, line: int) -> None:
    f.silences.write_text(HEADER + entry, encoding="utf-8")
    code, _, err = f.canary("validate")
    assert code == 1 and f"{f.silences}: line {line}:" in err and problem in err


def test_expire_moves_only_its_entry_and_a_flow_list_is_left_to_a_person() -> None:
    now = T0
    s = Silence(MODEL, BAD, T0 + HALF_HOUR, "r", "a", added_at=T0)
    text = add_silence(HEADER, "x.yaml", s)
    other = add_silence(text, "x.yaml", Silence(MODEL, None, T0 + HALF_HOUR, "model-wide", "b", added_at=T0))
    after, ended = expire_silences(other, "x.yaml", MODEL, BAD, now + HALF_HOUR / 2)
    assert [e.provider for e in ended] == [BAD]
    assert [(x.provider, x.until) for x in parse_silences(after, "x.yaml")] == [
        (BAD, now + HALF_HOUR / 2), (None, T0 + HALF_HOUR)]
    flow = HEADER + f'[{{model: "{MODEL}", until: "{iso(T0 + HALF_HOUR)}", reason: r, author: a, ' \
                    f'added_at: "{iso(T0)}"}}]\n'
    with pytest.raises(StoreError, match="by hand"):
        add_silence(flow, "x.yaml", s)
    with pytest.raises(StoreError, match="by hand"):
        expire_silences(flow, "x.yaml", MODEL, None, T0 + HALF_HOUR / 2)


def test_a_silence_never_changes_the_judgement(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("silenced", "plain"):
        (tmp_path / name).mkdir()
    quiet, loud = files_in(tmp_path / "silenced", capsys), files_in(tmp_path / "plain", capsys)
    quiet.silences.parent.mkdir(parents=True)
    quiet.silences.write_text(add_silence("", "s", Silence(MODEL, None, T0 + 4 * HALF_HOUR, "r", "a", T0)))
    for f in (quiet, loud):
        _judge_two_failed_rounds(f)
    assert quiet.state.read_bytes() == loud.state.read_bytes()
    decided = [json.loads(f.decisions.read_text())["decisions"] for f in (quiet, loud)]
    assert decided[0] == decided[1] and [d["action"] for d in decided[0]] == ["suspend"]
    assert [line["action"] for line in quiet.audit_lines()] == ["suspend"]


def test_announce_leaves_a_silenced_decision_out_of_the_message_and_marks_it_in_the_summary(
        f: Files, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _judge_two_failed_rounds(f)
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    decided = json.loads(f.decisions.read_text())
    with receiving() as hook:
        monkeypatch.setenv("CANARY_NOTIFY_URLS", f"json://127.0.0.1:{hook.port}/canary")
        assert f.canary("announce", str(f.decisions))[0] == 0            # no silence: told
        f.silences.write_text(add_silence(HEADER, "s", Silence(MODEL, BAD, T0 + 4 * HALF_HOUR, HOSTILE, "alice", T0)))
        code, out, _ = f.canary("announce", str(f.decisions))             # silenced: nothing sent
        assert code == 0 and "1 silenced decision(s) left out of the notification; nothing else to send" in out
    [request] = hook.requests
    assert "cirrus/fp8" in request.json()["message"]
    assert f"suspend {BAD} of {MODEL}" in out and "[silenced until" in out and "\nline two" not in out
    md = summary.read_text()
    assert "🔕" in md and "<img" not in md.replace("\\<img", "") and "\\[ticket\\]\\(http" in md and "\\@everyone" in md
    assert "\\| cell" in md
    assert json.loads(f.decisions.read_text()) == decided                  # the record is untouched


def test_a_silence_over_after_the_rounds_time_does_not_mute_that_round(
        f: Files, monkeypatch: pytest.MonkeyPatch) -> None:
    _judge_two_failed_rounds(f)   # decided at T0 + 30 min
    f.silences.write_text(add_silence(HEADER, "s", Silence(MODEL, BAD, T0 + HALF_HOUR / 2, "r", "a", T0)))
    with receiving() as hook:
        monkeypatch.setenv("CANARY_NOTIFY_URLS", f"json://127.0.0.1:{hook.port}/canary")
        assert f.canary("announce", str(f.decisions))[0] == 0
    assert len(hook.requests) == 1 and BAD in hook.requests[0].json()["message"]


def test_a_broken_silences_file_mutes_nothing(f: Files, monkeypatch: pytest.MonkeyPatch) -> None:
    _judge_two_failed_rounds(f)
    f.silences.write_text("- model: [unclosed\n")
    with receiving() as hook:
        monkeypatch.setenv("CANARY_NOTIFY_URLS", f"json://127.0.0.1:{hook.port}/canary")
        code, _, err = f.canary("announce", str(f.decisions))
    assert code == 0 and "No silence applies" in err and len(hook.requests) == 1


def test_status_lists_the_silences_in_force(f: Files) -> None:
    _judge_two_failed_rounds(f)
    f.silences.write_text(add_silence(HEADER, "s", Silence(MODEL, BAD, T0 + 4 * HALF_HOUR, "line\x1b[2Jone",
                                                           "alice", T0)))
    code, out, _ = f.canary("status", "--now", iso(T0 + HALF_HOUR))
    assert code == 0 and f"{BAD} of {MODEL}  until {iso(T0 + 4 * HALF_HOUR)}  by alice: line [2Jone" in out
    assert "\x1b" not in out and "suspended" in out   # the state column is the judge's, silenced or not
    assert "silences at" not in f.canary("status", "--now", iso(T0 + 4 * HALF_HOUR))[1]


def test_a_silence_added_in_the_future_cannot_stretch_past_thirty_days(f: Files) -> None:
    # Written by hand (or a clock a year ahead): 29 days from added_at, but a year from now.
    ahead = Silence(MODEL, BAD, T0 + timedelta(days=394), "r", "a", added_at=T0 + timedelta(days=365))
    f.silences.write_text(add_silence(HEADER, "s", ahead), encoding="utf-8")
    code, _, err = f.canary("validate", "--now", iso(T0))
    assert code == 1 and f"{f.silences}: line 3: added_at ({iso(ahead.added_at)}) is after now ({iso(T0)})" in err
    assert not ahead.active(T0) and silence_for([ahead], MODEL, BAD, T0) is None   # told, not muted
    assert "not in force: it ends more than 30 days ahead" in f.canary("silence", "list", "--all", "--now",
                                                                       iso(T0))[1]
    assert ahead.active(ahead.until - MAX_SILENCE) and f.canary("validate", "--now", iso(ahead.added_at))[0] == 0


def test_a_clock_a_few_minutes_ahead_still_writes_a_valid_silence(f: Files) -> None:
    skewed = Silence(MODEL, BAD, T0 + MAX_SILENCE + CLOCK_SKEW, "r", "a", added_at=T0 + CLOCK_SKEW)
    f.silences.write_text(add_silence(HEADER, "s", skewed), encoding="utf-8")
    assert f.canary("validate", "--now", iso(T0))[0] == 0 and skewed.active(T0)
