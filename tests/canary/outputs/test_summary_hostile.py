"""Upstream text is untrusted: hostile provider tags, reasons and model ids cannot reshape the summary."""

from __future__ import annotations

import json
import re

import pytest
from summary_data import MODEL, case, decision, decisions, healthy, record, results, unchecked

from canary.cli.main import main
from canary.outputs import summary
from canary.outputs.summary import REASON_LIMIT
from core import untrusted
from core.results import RoundResults
from core.results_read import read_results

HOSTILE_TAGS = {
    "pipe": "evil|x|y",
    "html": "<img src=x onerror=alert(1)><script>alert(1)</script>",
    "link": "[click me](https://evil.example/steal)",
    "emphasis": "*bold* _it_ ~~gone~~",
    "backticks": "`code` ```fence",
    "newline-heading": "ok\n## Owned\n| fake | row |",
    "ansi": "\x1b[2J\x1b[31mred\x1b[0m",
    "bidi": "abc\u202edcba\u2066x",
    "mention": "@everyone #1 :warning: $x$",
}

# An unescaped `|` (not preceded by a backslash) splits a table cell.
_CELL_SPLIT = re.compile(r"(?<!\\)\|")


def hostile_round(tag: str) -> tuple[RoundResults, dict]:
    cases = (*healthy("aurora/fp8"), *healthy(tag), case(tag, "language", "fail", reason=f"because {tag}"))
    # The one reader sets a case with a hostile tag aside (judge and summary alike) ...
    assert {c.provider for c in read_results(results(*cases)).cases} == {"aurora/fp8"}
    # ... and the renderers contain one all the same, should it ever get past it.
    res = unchecked(*cases)
    dec = decisions(decision("would_suspend", tag, reason=tag), ignore={MODEL: [tag]}, would_ignore={MODEL: [tag]})
    return res, dec


def table_rows(md: str) -> list[list[str]]:
    """Each table line split on unescaped pipes (header, rule and body rows)."""
    return [_CELL_SPLIT.split(line) for line in md.splitlines() if line.startswith("|")]


@pytest.mark.parametrize("tag", HOSTILE_TAGS.values(), ids=HOSTILE_TAGS.keys())
def test_a_hostile_tag_stays_inside_its_table_cell(tag):
    md = summary.to_markdown(*hostile_round(tag))
    tables: dict[int, int] = {}
    for cells in table_rows(md):
        tables.setdefault(len(cells), 0)
        tables[len(cells)] += 1
    # Every table line has the column count of one of the four tables (outcomes, findings,
    # decisions, ignore): 6+2, 5+2, 5+2, 3+2 cells around the pipes.
    assert set(tables) <= {8, 7, 5}, tables


@pytest.mark.parametrize("tag", HOSTILE_TAGS.values(), ids=HOSTILE_TAGS.keys())
def test_a_hostile_tag_cannot_start_markup(tag):
    md = summary.to_markdown(*hostile_round(tag))
    assert re.search(r"(?<!\\)<(img|script)", md) is None  # raw HTML
    assert "](" not in md  # no link
    assert "## Owned" not in md  # no injected heading
    assert re.search(r"(?<!\\)`code", md) is None
    assert re.search(r"(?<!\\)\*bold", md) is None
    assert re.search(r"(?<!\\)@everyone", md) is None
    assert "\x1b" not in md and "\u202e" not in md


@pytest.mark.parametrize("tag", HOSTILE_TAGS.values(), ids=HOSTILE_TAGS.keys())
def test_the_terminal_summary_carries_no_control_characters(tag):
    text = summary.to_text(*hostile_round(tag))
    assert not [ch for ch in text if ch != "\n" and (ord(ch) < 32 or 0x7F <= ord(ch) < 0xA0)]
    assert "\u202e" not in text and "\u2066" not in text
    assert "\n## Owned" not in text  # a newline in a tag cannot start a line of its own


def test_a_long_reason_is_cut_with_an_ellipsis():
    reason = "x" * 5000
    md = summary.to_markdown(record(case("aurora/fp8", "language", "fail", reason=reason)))
    cut = "x" * (REASON_LIMIT - 1) + "…"
    assert cut in md and "x" * REASON_LIMIT not in md


def test_a_huge_round_keeps_the_summary_bounded():
    cases = [case(f"host{i}/fp8", "language", "fail", reason="r" * 1000) for i in range(500)]
    md = summary.to_markdown(record(*cases))
    assert "… and 450 more" in md
    assert len(md.encode()) < 1024 * 1024  # GitHub's limit for one step summary


def test_odd_types_in_the_files_do_not_crash_the_summary(tmp_path, capsys):
    # A measurement of an odd type reads as absent, a case with an unknown outcome is set aside
    # (by the one reader, as the judge does); a decisions file of another shape is refused by its
    # one reader, naming the field, and the summary prints the outcomes without it.
    doc = results(case("aurora/fp8", "latency", "pass", ttft_s="fast"), case("b/x", "refusal", None, reason=None))
    assert "aurora/fp8" in summary.to_markdown(read_results(doc)) and "aurora/fp8" in summary.to_text(read_results(doc))
    (tmp_path / "results.json").write_text(json.dumps(doc))
    (tmp_path / "decisions.json").write_text(json.dumps(
        {"round_id": "r1", "mode": "observe", "now": "2026-12-01T00:00:00Z",   # the walk names the first odd key
         "decisions": [None, 3, {"action": 7}], "ignore": {"m": "not-a-list"}, "gap_minutes": "long"}))
    assert main(["summary", "--results", str(tmp_path / "results.json"),
                 "--decisions", str(tmp_path / "decisions.json")]) == 0
    out, err = capsys.readouterr()
    assert "aurora/fp8" in out and "decisions: none yet" in out
    assert "decisions.json: gap_minutes: expected a number or null" in err and "summarising the outcomes only" in err


def test_a_record_the_reader_refuses_is_named_by_the_summary_command(tmp_path, capsys):
    doc = results(case("aurora/fp8", "latency", "pass"))
    doc["weak_probes"] = "not a list"
    (tmp_path / "results.json").write_text(json.dumps(doc))
    assert main(["summary", "--results", str(tmp_path / "results.json")]) == 2
    assert "results.json: weak_probes: expected a list" in capsys.readouterr().err


@pytest.mark.parametrize(("raw", "expected"), [
    ("a\r\nb\tc", "a b c"),
    ("\x00\x07bell", "bell"),
    ("zero\u200bwidth", "zero\\u200bwidth"),   # marked, never deleted: deleting would join the text around it
    ("soft\u00adhyphen\u202e", "soft\\xadhyphen\\u202e"),
], ids=["newlines", "controls", "zero-width", "soft-hyphen-and-bidi"])
def test_clean_leaves_one_printable_line(raw, expected):
    assert untrusted.clean(raw) == expected


def test_markdown_escaping_keeps_the_text_readable():
    assert untrusted.markdown("a|b_c") == "a\\|b\\_c"
    assert untrusted.markdown("deepseek/deepseek-chat-v3-0324") == "deepseek/deepseek-chat-v3-0324"
