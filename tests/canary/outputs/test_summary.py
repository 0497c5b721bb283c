"""The round summary: outcomes table, decisions, provider.ignore, gaps; Markdown and terminal."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from summary_data import MODEL, case, decision, decisions, healthy, record

from canary.cli.main import main
from canary.outputs import summary
from canary.outputs.roundview import GAP_WARNING_MINUTES
from core.field_rules import written
from core.results import RoundResults
from judge.suspension.decisions import Action


def mixed_round() -> RoundResults:
    return record(
        *healthy("aurora/fp8", ttft_s=0.41),
        case("borealis/bf16", "latency", "fail", reason="no text within 10 s", ttft_s=11.2),
        case("borealis/bf16", "refusal"),
        case("borealis/bf16", "structured", "not_applicable", ttft_s=None),
        case("borealis/bf16", "language", "inconclusive", reason="too short to judge"),
        case("ember/fp8", "latency", "transport_error", reason="HTTP 503", ttft_s=None),
        case("ember/fp8", "refusal", "fail", reason="content_filter", control=True),
    )


def test_the_table_shows_one_symbol_per_contract_and_the_time_to_first_token():
    md = summary.to_markdown(mixed_round())
    assert "| Provider | latency | refusal | structured | language | TTFT |" in md
    assert "| aurora/fp8 | ✅ | ✅ | ✅ | ✅ | 0.41 s |" in md
    assert "| borealis/bf16 | ❌ | ✅ | — | ⏸ | 11.20 s |" in md
    assert "Legend: ✅ pass · ❌ fail · ⏸ inconclusive · ⚡ transport error" in md


def test_a_latency_transport_error_shows_no_time_to_first_token():
    md = summary.to_markdown(mixed_round())
    assert "| ember/fp8 | ⚡ | ❌ᶜ |  |  | — |" in md


def test_every_case_that_did_not_pass_is_listed_with_its_reason():
    md = summary.to_markdown(mixed_round())
    assert "no text within 10 s" in md and "too short to judge" in md and "HTTP 503" in md
    assert "aurora/fp8 | latency" not in md  # passes are not findings


def test_the_summary_renders_without_a_decisions_file():
    md = summary.to_markdown(mixed_round(), None)
    assert "No decisions file: run `canary judge`" in md
    assert "decisions: none yet" in summary.to_text(mixed_round(), None)


def test_decisions_left_over_from_another_round_are_not_shown_as_this_rounds():
    doc = replace(decisions(decision("suspend", "borealis/bf16")), round_id="20261129T220000Z-older")
    md = summary.to_markdown(mixed_round(), doc)
    assert "is for round 20261129T220000Z-older, not this one" in md
    assert "Suspended" not in md


def test_decisions_are_listed_in_the_order_that_changed_traffic_first():
    doc = decisions(
        decision("probe_weak", "", reason="control ember/fp8 passed"),
        decision("restore", "cirrus/fp8", reason="two clean rounds"),
        decision("suspend", "borealis/bf16", until="2026-11-30T22:31:00Z"),
        decision("floor_held", "dune/fp4", reason="only 1 endpoint would remain"),
        mode="enforce",
    )
    md = summary.to_markdown(mixed_round(), doc)
    positions = [md.index(Action(a).heading.split(" (")[0])
                 for a in ("suspend", "floor_held", "restore", "probe_weak")]
    assert positions == sorted(positions)
    assert "2026-11-30T22\\:31\\:00Z" in md  # the expiry, escaped like all file data
    assert "### Decisions this round (mode enforce)" in md


def test_the_effective_provider_ignore_is_shown_per_model_with_observe_mode_additions():
    doc = decisions(decision("would_suspend", "borealis/bf16"), ignore={MODEL: ["ember/fp8"]},
                    would_ignore={MODEL: ["borealis/bf16"]})
    md = summary.to_markdown(mixed_round(), doc)
    assert f"| {MODEL} | ember/fp8 | borealis/bf16 |" in md
    text = summary.to_text(mixed_round(), doc)
    assert f"{MODEL}: ember/fp8   (would add in enforce mode: borealis/bf16)" in text


def test_a_model_with_nothing_ignored_says_none():
    md = summary.to_markdown(mixed_round(), decisions())
    assert f"| {MODEL} | (none) | (none) |" in md
    assert "None: no provider changed state." in md


@pytest.mark.parametrize(("gap", "warned"), [(None, False), (30, False), (GAP_WARNING_MINUTES, False),
                                             (GAP_WARNING_MINUTES + 1, True), (185, True)],
                         ids=["first-round", "on-time", "at-threshold", "just-late", "three-hours"])
def test_a_long_gap_since_the_previous_round_is_called_out(gap, warned):
    md = summary.to_markdown(mixed_round(), decisions(gap_minutes=gap))
    assert ("GitHub delayed or skipped runs" in md) is warned


def test_the_gap_reads_in_hours_when_long():
    text = summary.to_text(mixed_round(), decisions(gap_minutes=185))
    assert "previous round 3 h ago: GitHub delayed or skipped runs" in text


def test_an_incomplete_round_says_no_streak_changed():
    doc = record(*healthy("aurora/fp8"), complete=False, incomplete_reason="discovery failed: HTTP 500")
    md = summary.to_markdown(doc)
    assert "Incomplete round \\(discovery failed\\: HTTP 500\\)" in md


def test_a_weak_probe_is_said_loudly():
    doc = record(*healthy("aurora/fp8"), weak_probes=[
        {"model": MODEL, "contract": "refusal", "control": "ember/fp8", "reason": "the control answered"}])
    assert "refusal probe weak for" in summary.to_text(doc)


def test_a_control_that_was_not_probed_is_said_loudly_in_both_renderings():
    doc = record(*healthy("aurora/fp8"), unprobed_controls=[
        {"model": MODEL, "contract": "refusal", "control": "ember/fp8",
         "reason": "ember/fp8 not discovered by the upstream for this model"}])
    text = summary.to_text(doc)
    assert "WARNING: refusal probe unverified for deepseek/deepseek-chat-v3-0324: positive control ember/fp8 not " \
           "discovered" in text and "fix `controls` in canary.yaml" in text
    assert "> ⚠️ refusal probe unverified" in summary.to_markdown(doc)


def test_unprobed_controls_and_the_virtual_clock_are_said():
    merged = record(*healthy("aurora/fp8"), round_id="r-a", clock="virtual", unprobed_controls=[
        {"model": MODEL, "contract": "refusal", "control": "ember/fp8", "reason": "ember/fp8 not discovered"}])
    assert "probe unverified" in summary.to_text(merged) and "(virtual time)" in summary.to_text(merged)


def test_real_time_is_not_called_virtual():
    assert "virtual" not in summary.to_text(record(*healthy("aurora/fp8"), clock="real"))
    assert "virtual" not in summary.to_text(record(*healthy("aurora/fp8")))


def test_every_decision_has_its_heading():
    for action in Action:
        doc = decisions(decision(action.value, "ember/fp8", reason="why"))
        assert action.heading in summary.to_text(record(*healthy("aurora/fp8")), doc)


def test_a_discovered_endpoint_without_cases_still_gets_a_row():
    doc = record(*healthy("aurora/fp8"), providers=["aurora/fp8", "zephyr/fp8"])
    assert "| zephyr/fp8 |  |  |  |  | — |" in summary.to_markdown(doc)


def test_the_terminal_table_aligns_columns_and_uses_words():
    lines = summary.to_text(mixed_round()).splitlines()
    header = next(i for i, line in enumerate(lines) if line.strip().startswith("provider"))
    column = lines[header].index("ttft")
    rows = lines[header + 1: header + 4]
    assert [row[column:] for row in rows] == ["0.41 s", "11.20 s", "—"]
    assert "FAIL (c)" in rows[2] and "transport" in rows[2] and "inconcl" in rows[1]


def test_the_command_prints_markdown_and_appends_to_the_step_summary(tmp_path, monkeypatch, capsys):
    (tmp_path / "results.json").write_text(json.dumps(written(mixed_round())))
    (tmp_path / "decisions.json").write_text(json.dumps(written(decisions(gap_minutes=200))))
    step = tmp_path / "step-summary.md"
    step.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step))
    rc = main(["summary", "--results", str(tmp_path / "results.json"), "--decisions",
               str(tmp_path / "decisions.json"), "--markdown", "--step-summary"])
    assert rc == 0
    out = capsys.readouterr().out
    assert out.startswith("## Canary round")
    summary_text = step.read_text()
    assert summary_text.startswith("earlier step\n## Canary round") and "GitHub delayed or skipped runs" in summary_text


def test_the_command_without_a_decisions_file_still_prints(tmp_path, capsys):
    (tmp_path / "results.json").write_text(json.dumps(written(mixed_round())))
    rc = main(["summary", "--results", str(tmp_path / "results.json"), "--decisions", str(tmp_path / "none.json")])
    captured = capsys.readouterr()
    assert rc == 0 and "borealis/bf16" in captured.out
    assert "no decisions file" in captured.err


def test_the_command_names_a_missing_results_file(tmp_path, capsys):
    rc = main(["summary", "--results", str(tmp_path / "results.json")])
    assert rc == 2
    assert "no such results file (run `canary probe` first" in capsys.readouterr().err


def test_the_command_names_a_broken_results_file(tmp_path, capsys):
    (tmp_path / "results.json").write_text("{not json")
    assert main(["summary", "--results", str(tmp_path / "results.json")]) == 2
    assert "not valid JSON (line 1" in capsys.readouterr().err
