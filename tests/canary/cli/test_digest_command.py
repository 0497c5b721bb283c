"""`canary digest`: one message when one is due and something changed since the last, over a real
socket to a local JSON receiver; its bookkeeping is the audit log's `digest_sent` line. `--now` is
passed every time: nothing here depends on today's date."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from judge_cli_support import HALF_HOUR, MODEL, T0, Files, files_in, iso
from notify_receivers import receiving

from canary.state.silences import add_silence
from judge.suspension.silences import Silence

BAD = "cirrus/fp8"
HOUR = 2 * HALF_HOUR
HOSTILE = "ticket <img src=x onerror=alert(1)> [x](http://evil.example) @everyone"


@pytest.fixture
def f(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Files:
    files = files_in(tmp_path, capsys, mode="observe")
    files.silences.parent.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "output.txt"))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "summary.md"))
    return files


def _fail_twice(f: Files) -> None:
    for i in range(2):
        at = T0 + i * HALF_HOUR
        path = f.results(f"r{i}.json", {BAD: "fail"}, at=at)
        assert f.canary("judge", str(path), "--now", iso(at), "--no-notify")[0] == 0


def _digest(f: Files, monkeypatch: pytest.MonkeyPatch, at: Any, *extra: str) -> tuple[str, list[dict[str, Any]]]:
    with receiving() as hook:
        monkeypatch.setenv("CANARY_NOTIFY_URLS", f"json://127.0.0.1:{hook.port}/digest")
        code, out, _ = f.canary("digest", "--now", iso(at), *extra)
    assert code == 0
    return out, [r.json() for r in hook.requests]


def test_the_first_digest_tells_what_stands_and_the_next_waits_for_a_change(
        f: Files, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _fail_twice(f)
    f.silences.write_text(add_silence("", "s", Silence(MODEL, "dune/fp16", T0 + 72 * HOUR, HOSTILE, "alice", T0)))
    out, [sent] = _digest(f, monkeypatch, T0 + HOUR)
    assert sent["title"] == "canary digest: 1 would suspend, 1 silenced" and sent["type"] == "warning"
    body = sent["message"]   # a JSON webhook renders no Markdown: the text as it reads, no escapes, no bold marks
    assert f"{BAD} of {MODEL} until {iso(T0 + HALF_HOUR + 48 * HALF_HOUR)}" in body and "\\" not in body
    assert "Would suspend (observe mode)\n" in body and "Changed since the last digest\n" in body
    assert body.count("- new: ") == 2 and HOSTILE in body and "**" not in body
    assert "Observe mode: 1 would-suspend(s) in the last 7 days: 1 active" in body
    assert "\\" not in out and "Observe mode: 1 would-suspend(s)" in out   # nor in the terminal
    markdown = (tmp_path / "summary.md").read_text()   # the job summary renders Markdown: escaped there
    assert "**Would suspend (observe mode)**" in markdown and "\\<img" in markdown and "\\@everyone" in markdown
    assert "<img" not in markdown.replace("\\<img", "")
    [line] = [r for r in f.audit_lines() if r["action"] == "digest_sent"]
    assert line["time"] == iso(T0 + HOUR) and len(line["keys"]) == 2
    assert (tmp_path / "output.txt").read_text() == "recorded=true\n"
    assert "### canary digest: 1 would suspend, 1 silenced" in (tmp_path / "summary.md").read_text()
    out, sent_again = _digest(f, monkeypatch, T0 + 2 * HOUR)          # not due (24 h)
    assert sent_again == [] and "next is due from" in out
    out, sent_again = _digest(f, monkeypatch, T0 + 2 * HOUR, "--force")   # forced: sent, as a test message
    assert len(sent_again) == 1


def test_nothing_is_sent_when_nothing_changed_and_a_change_is_told(
        f: Files, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    f.silences.write_text(add_silence("", "s", Silence(MODEL, None, T0 + 72 * HOUR, "vendor", "alice", T0)))
    assert len(_digest(f, monkeypatch, T0 + HOUR)[1]) == 1
    out, sent = _digest(f, monkeypatch, T0 + 26 * HOUR)             # due, but the same silence is all there is
    assert sent == [] and "nothing changed since the last digest; nothing sent" in out
    assert [r["action"] for r in f.audit_lines()].count("digest_sent") == 1
    _fail_twice_later(f, T0 + 26 * HOUR)
    _, [sent_now] = _digest(f, monkeypatch, T0 + 27 * HOUR)
    assert "- new: would suspend (observe mode): " in sent_now["message"]


def _fail_twice_later(f: Files, start: Any) -> None:
    for i in range(2):
        at = start + i * HALF_HOUR
        path = f.results(f"late{i}.json", {BAD: "fail"}, at=at)
        assert f.canary("judge", str(path), "--now", iso(at), "--no-notify")[0] == 0


def test_what_ends_today_and_what_is_gone_are_said(f: Files, monkeypatch: pytest.MonkeyPatch) -> None:
    f.silences.write_text(add_silence("", "s", Silence(MODEL, BAD, T0 + 3 * HOUR, "short", "bob", T0)))
    _, [first] = _digest(f, monkeypatch, T0 + HOUR)                 # 23:00: the silence ends at 01:00 tomorrow
    assert "Expires today\n" not in first["message"]
    f.silences.write_text(add_silence("", "s", Silence(MODEL, BAD, T0 + 30 * HOUR, "r", "bob", T0)))
    _, [second] = _digest(f, monkeypatch, T0 + 26 * HOUR)           # its silence replaced by one ending today
    assert "Expires today\n" in second["message"] and "- no longer: silence" in second["message"]


def test_every_hours_is_configurable_and_zero_turns_it_off(f: Files, monkeypatch: pytest.MonkeyPatch) -> None:
    f.silences.write_text(add_silence("", "s", Silence(MODEL, BAD, T0 + 72 * HOUR, "r", "bob", T0)))
    config = f.config.read_text()
    f.config.write_text(config + "digest:\n  every_hours: 0\n")
    out, sent = _digest(f, monkeypatch, T0 + HOUR)
    assert sent == [] and "off" in out and not f.audit_lines()
    f.config.write_text(config + "digest:\n  every_hours: 1\n")
    assert len(_digest(f, monkeypatch, T0 + HOUR)[1]) == 1
    f.silences.write_text(f.silences.read_text() + add_silence("", "s", Silence(MODEL, None, T0 + 9 * HOUR, "m", "c",
                                                                                T0)))
    assert _digest(f, monkeypatch, T0 + 3 * HALF_HOUR)[1] == []       # changed, but not due within the hour
    assert len(_digest(f, monkeypatch, T0 + 2 * HOUR)[1]) == 1


def test_the_operator_chooses_the_hour_the_digest_goes_out(f: Files, monkeypatch: pytest.MonkeyPatch) -> None:
    f.config.write_text(f.config.read_text() + "digest:\n  hour_utc: 8\n")
    f.silences.write_text(add_silence("", "s", Silence(MODEL, BAD, T0 + 72 * HOUR, "r", "bob", T0)))
    assert len(_digest(f, monkeypatch, T0 + HOUR)[1]) == 1             # the first: at once (23:00)
    f.silences.write_text(f.silences.read_text() + add_silence("", "s", Silence(MODEL, None, T0 + 99 * HOUR, "m", "c",
                                                                                T0)))
    out, sent = _digest(f, monkeypatch, T0 + 9 * HOUR + HALF_HOUR)     # 07:30: changed, not yet 08:00
    assert sent == [] and f"the next is due from {iso(T0 + 10 * HOUR)}" in out   # not 23:00, 24 h after the first
    assert len(_digest(f, monkeypatch, T0 + 10 * HOUR + HALF_HOUR)[1]) == 1   # the round after 08:00 sends it


def test_an_audit_line_of_another_shape_is_named_and_the_last_good_digest_still_counts(
        f: Files, monkeypatch: pytest.MonkeyPatch) -> None:
    _fail_twice(f)
    assert len(_digest(f, monkeypatch, T0 + HOUR)[1]) == 1
    count = len(f.audit.read_text(encoding="utf-8").splitlines())
    with f.audit.open("a", encoding="utf-8") as handle:   # a hand-edited digest line, its keys not a list
        handle.write(f'{{"action": "digest_sent", "time": "{iso(T0 + 2 * HOUR)}", "keys": "all"}}\n')
    code, out, err = f.canary("digest", "--now", iso(T0 + 3 * HOUR))
    assert code == 0 and f"the last was at {iso(T0 + HOUR)}" in out
    assert (f"canary digest: warning: {f.audit}:{count + 1}: keys: expected a list, got 'all' "
            "(that audit line is skipped)") in err
