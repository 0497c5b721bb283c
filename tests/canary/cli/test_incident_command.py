"""`canary incident add|remove` edits one entry with ruamel.yaml and keeps every other byte of the file."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from judge_cli_support import MODEL, T0, Files, files_in, iso

from canary.state.incidents import add_incident, remove_incident
from core.layer_files import parse_exclusions, read_layer
from core.layers import INCIDENT, Exclusion, layer_named
from core.store import StoreError

ROOT = Path(__file__).resolve().parents[3]

HAND_WRITTEN = '''# Incidents: see the runbook.   <- a person's comment
"deepseek/deepseek-chat-v3-0324":
  # aurora: the 2026-11-29 engine update, ticket OPS-12
  - provider: aurora/fp8
    reason: filters roleplay   # inline comment
    added_at: 2026-11-29T22:30:00Z

# other models below, keep alphabetical
"other/model":
  - provider: "x/fp8"
    reason: "slow"
    added_at: "2026-11-28T00:00:00Z"
# trailing comment
'''

# The block `add` writes for entry(MODEL-less fields) at T0, in the house indentation.
BOREALIS = f'''  - provider: "borealis/bf16"
    reason: "r"
    added_at: "{iso(T0)}"
'''

# Comments above, between and after the entries of two models, one on a model key's line.
BETWEEN = '''"a/m":
  - provider: "p1"
    reason: "r"
    added_at: "2026-11-28T00:00:00Z"

  # p2: see OPS-3
  - provider: "p2"
    reason: "r"
    added_at: "2026-11-28T00:00:00Z"   # inline
  # p3 below
  - provider: "p3"
    reason: "r"
    added_at: "2026-11-28T00:00:00Z"
# end of a/m
"b/m":  # key note
  # first of b
  - provider: "q"
    reason: "r"
    added_at: "2026-11-28T00:00:00Z"

# the end
'''


@pytest.fixture
def f(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Files:
    files = files_in(tmp_path, capsys)
    files.incidents.parent.mkdir(parents=True)
    files.incidents.write_text(HAND_WRITTEN, encoding="utf-8")
    return files


def entry(model: str, provider: str, reason: str = "r") -> Exclusion:
    return Exclusion(model, provider, INCIDENT, reason, since=T0)


def without(text: str, lines: str) -> str:
    """`text` with the one run `lines` taken out (what a removal should leave)."""
    assert text.count(lines) == 1
    return text.replace(lines, "")


def _comments(text: str) -> list[str]:
    return [line for line in text.splitlines() if "#" in line]


def test_add_keeps_comments_and_formatting(f: Files) -> None:
    code, _, _ = f.canary("incident", "add", "--model", MODEL, "--provider", "borealis/bf16", "--reason",
                          'mixes "pt" and es\nbadly', "--expires", "2026-12-01T00:00:00Z", "--by", "alice",
                          "--now", iso(T0))
    assert code == 0
    block = (f'  - provider: "borealis/bf16"\n    reason: "mixes \\"pt\\" and es\\nbadly"\n'
             f'    added_at: "{iso(T0)}"\n    expires: "2026-12-01T00:00:00Z"\n    added_by: "alice"\n')
    # Below the model's last entry, above the blank line and the comment that lead to the next model.
    assert f.incidents.read_text() == HAND_WRITTEN.replace("22:30:00Z\n\n", "22:30:00Z\n" + block + "\n")
    entries = read_layer(layer_named(INCIDENT), f.incidents)
    [new] = [e for e in entries if e.provider == "borealis/bf16"]
    assert (new.model, new.reason, new.added_by, new.since) == (MODEL, 'mixes "pt" and es\nbadly', "alice", T0)
    assert [line["action"] for line in f.audit_lines()] == ["incident_add"]


def test_add_then_remove_gives_back_the_original_bytes(f: Files) -> None:
    f.canary("incident", "add", "--model", MODEL, "--provider", "borealis/bf16", "--reason", "r", "--now", iso(T0))
    assert f.incidents.read_text() == HAND_WRITTEN.replace("22:30:00Z\n\n", "22:30:00Z\n" + BOREALIS + "\n")
    code, _, _ = f.canary("incident", "remove", "--model", MODEL, "--provider", "borealis/bf16", "--reason", "fixed")
    assert code == 0 and f.incidents.read_text() == HAND_WRITTEN
    assert [line["action"] for line in f.audit_lines()] == ["incident_add", "incident_remove"]


def test_add_to_the_last_model_goes_above_the_trailing_comment() -> None:
    text = add_incident(HAND_WRITTEN, "x", entry("other/model", "borealis/bf16"))
    assert text == HAND_WRITTEN.replace("# trailing comment\n", BOREALIS + "# trailing comment\n")
    assert remove_incident(text, "x", "other/model", "borealis/bf16") == HAND_WRITTEN


def test_add_for_a_new_model_appends_a_section(f: Files) -> None:
    f.canary("incident", "add", "--model", "new/model:free", "--provider", "c/fp8", "--reason", "r", "--now", iso(T0))
    text = f.incidents.read_text()
    assert text == HAND_WRITTEN + '"new/model:free":\n' + BOREALIS.replace("borealis/bf16", "c/fp8")
    entries = read_layer(layer_named(INCIDENT), f.incidents)
    assert [e.provider for e in entries if e.model == "new/model:free"] == ["c/fp8"]


def test_add_follows_the_files_indentation() -> None:
    wide = ('"other/model":\n    -   provider: "x/fp8"\n        reason: "slow"\n'
            '        added_at: "2026-11-28T00:00:00Z"\n')
    text = add_incident(wide, "incidents.yaml", entry("other/model", "y/fp8"))
    assert text == wide + f'    -   provider: "y/fp8"\n        reason: "r"\n        added_at: "{iso(T0)}"\n'
    assert remove_incident(text, "incidents.yaml", "other/model", "y/fp8") == wide


def test_a_section_indented_unlike_the_first_is_refused_with_its_line(f: Files) -> None:
    # One indentation for the whole file is all a YAML emitter writes: the odd section would be rewritten.
    mixed = HAND_WRITTEN.replace('  - provider: "x/fp8"\n    reason: "slow"\n    added_at',
                                 '    -   provider: "x/fp8"\n        reason: "slow"\n        added_at')
    f.incidents.write_text(mixed, encoding="utf-8")
    code, _, err = f.canary("incident", "add", "--model", MODEL, "--provider", "b/fp8", "--reason", "r")
    assert code == 2 and f.incidents.read_text() == mixed
    assert f"{f.incidents}: line 10: an automatic edit would rewrite this line as '  - provider: \"x/fp8\"'" in err
    assert "Nothing was written" in err and len(err.strip().splitlines()) == 1 and f.audit_lines() == []


def test_removing_the_last_entry_of_a_model_removes_its_key_and_keeps_comments(f: Files) -> None:
    f.canary("incident", "remove", "--model", MODEL, "--provider", "aurora/fp8", "--reason", "fixed")
    # Only the key and the entry's own lines go; the comment above the entry stays where it stood.
    assert f.incidents.read_text() == without(without(HAND_WRITTEN, f'"{MODEL}":\n'),
                                              "  - provider: aurora/fp8\n    reason: filters roleplay   # inline "
                                              "comment\n    added_at: 2026-11-29T22:30:00Z\n")
    assert [e.model for e in read_layer(layer_named(INCIDENT), f.incidents)] == ["other/model"]


@pytest.mark.parametrize(("model", "provider"), [("a/m", "p1"), ("a/m", "p2"), ("a/m", "p3"), ("b/m", "q")])
def test_removing_an_entry_keeps_the_comments_around_it(model: str, provider: str) -> None:
    lines = BETWEEN.splitlines(keepends=True)
    start = lines.index(f'  - provider: "{provider}"\n')
    gone = "".join(lines[start:start + 3])
    expected = without(BETWEEN, gone)
    if model == "b/m":  # its last entry: the key's line goes too (its comment on that line with it)
        expected = without(expected, '"b/m":  # key note\n')
    assert remove_incident(BETWEEN, "x", model, provider) == expected


def test_removing_an_entry_with_a_comment_between_its_keys_is_left_to_a_person() -> None:
    inside = BETWEEN.replace('  - provider: "p2"\n', '  - provider: "p2"\n    # checked twice\n')
    with pytest.raises(StoreError, match="edit it by hand"):
        remove_incident(inside, "x", "a/m", "p2")
    assert remove_incident(inside, "x", "a/m", "p1") == without(BETWEEN, '  - provider: "p1"\n    reason: "r"\n'
                                                               '    added_at: "2026-11-28T00:00:00Z"\n').replace(
        '  - provider: "p2"\n', '  - provider: "p2"\n    # checked twice\n')


def test_add_between_commented_entries_and_back() -> None:
    text = add_incident(BETWEEN, "x", entry("a/m", "borealis/bf16"))
    assert text == BETWEEN.replace("# end of a/m\n", BOREALIS + "# end of a/m\n")
    assert remove_incident(text, "x", "a/m", "borealis/bf16") == BETWEEN


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(["a/m", "b/m", "new/m"]), min_size=1, max_size=3), st.randoms(use_true_random=False))
def test_adds_then_removals_in_any_order_give_back_the_original_bytes(models: list[str], rng: random.Random) -> None:
    # Each removal hands its comments back to what precedes it, whatever was added after it.
    text = BETWEEN
    added = [(model, f"h{i}/fp8") for i, model in enumerate(models)]
    for model, provider in added:
        text = add_incident(text, "x", entry(model, provider))
        assert _comments(text) == _comments(BETWEEN)
    rng.shuffle(added)
    for model, provider in added:
        text = remove_incident(text, "x", model, provider)
    assert text == BETWEEN


def test_add_into_an_empty_commented_file(tmp_path: Path) -> None:
    header = "# only a header\n# and comments\n"
    text = add_incident(header, "x", entry(MODEL, "a/fp8"))
    assert text == header + f'"{MODEL}":\n' + BOREALIS.replace("borealis/bf16", "a/fp8")
    assert len(parse_exclusions(text, INCIDENT, "x")) == 1
    assert remove_incident(text, "x", MODEL, "a/fp8") == header


def test_a_comment_only_file_through_the_command_never_becomes_null(f: Files) -> None:
    header = "# Runtime incident exclusions.\n#\n# (none yet)\n"
    f.incidents.write_text(header, encoding="utf-8")
    assert f.canary("incident", "add", "--model", MODEL, "--provider", "a/fp8", "--reason", "r",
                    "--now", iso(T0))[0] == 0
    assert f.incidents.read_text() == header + f'"{MODEL}":\n' + BOREALIS.replace("borealis/bf16", "a/fp8")
    assert f.canary("incident", "remove", "--model", MODEL, "--provider", "a/fp8", "--reason", "done")[0] == 0
    assert f.incidents.read_text() == header


def test_an_empty_file_gets_one_section_and_back() -> None:
    text = add_incident("", "x", entry(MODEL, "a/fp8"))
    assert text == f'"{MODEL}":\n' + BOREALIS.replace("borealis/bf16", "a/fp8")
    assert remove_incident(text, "x", MODEL, "a/fp8") == ""


def test_a_model_key_without_entries_takes_the_first() -> None:
    waiting = '"m/x":   # waiting\n# next\n"n/y":\n' + BOREALIS.replace("borealis/bf16", "q")
    text = add_incident(waiting, "x", entry("m/x", "a/fp8"))
    assert text == waiting.replace("# waiting\n", "# waiting\n" + BOREALIS.replace("borealis/bf16", "a/fp8"))


def test_a_missing_final_newline_gets_one() -> None:
    text = add_incident(HAND_WRITTEN.rstrip("\n"), "x", entry("other/model", "borealis/bf16"))
    assert text == HAND_WRITTEN.replace("# trailing comment\n", BOREALIS + "# trailing comment\n")


def test_a_byte_order_mark_stays_first() -> None:
    text = add_incident("\ufeff" + HAND_WRITTEN, "x", entry("other/model", "borealis/bf16"))
    assert text == "\ufeff" + HAND_WRITTEN.replace("# trailing comment\n", BOREALIS + "# trailing comment\n")
    assert remove_incident(text, "x", "other/model", "borealis/bf16") == "\ufeff" + HAND_WRITTEN


def test_the_shipped_incident_file_accepts_an_add() -> None:
    shipped = (ROOT / "exclusions" / "incidents.yaml").read_text()
    text = add_incident(shipped, "incidents.yaml", entry(MODEL, "a/fp8"))
    assert text == shipped + f'"{MODEL}":\n' + BOREALIS.replace("borealis/bf16", "a/fp8")
    assert remove_incident(text, "incidents.yaml", MODEL, "a/fp8") == shipped


def test_the_documented_example_accepts_an_add_and_a_removal() -> None:
    # docs/file-formats.md's incidents example, its aligned comments included.
    docs = (ROOT / "docs" / "file-formats.md").read_text()
    [example] = re.findall(r"# exclusions/incidents\.yaml[^\n]*\n(.*?)```", docs, re.S)
    text = add_incident(example, "incidents.yaml", entry(MODEL, "borealis/bf16"))
    assert text == example + BOREALIS
    assert remove_incident(text, "incidents.yaml", MODEL, "borealis/bf16") == example


def test_adding_a_provider_already_listed_is_refused(f: Files) -> None:
    code, _, err = f.canary("incident", "add", "--model", MODEL, "--provider", "aurora/fp8", "--reason", "r")
    assert code == 2 and "already listed" in err and "line 4" in err
    assert f.incidents.read_text() == HAND_WRITTEN


def test_removing_an_absent_incident_is_refused(f: Files) -> None:
    code, _, err = f.canary("incident", "remove", "--model", MODEL, "--provider", "nobody/fp8", "--reason", "r")
    assert code == 2 and "no incident" in err and f.incidents.read_text() == HAND_WRITTEN


def test_a_hostile_provider_tag_is_refused(f: Files) -> None:
    code, _, err = f.canary("incident", "add", "--model", MODEL, "--provider", "$(reboot)", "--reason", "r")
    assert code == 2 and "not an acceptable tag" in err and f.incidents.read_text() == HAND_WRITTEN


def test_a_reason_with_an_invisible_character_is_refused(f: Files) -> None:
    # A double-quoted YAML scalar would carry a bidi override or a zero-width space as it is.
    for odd in ("\u202e", "\u200b"):
        code, _, err = f.canary("incident", "add", "--model", MODEL, "--provider", "b/fp8", "--reason", f"a{odd}b")
        assert code == 2 and f"reason: U+{ord(odd):04X}" in err and f.incidents.read_text() == HAND_WRITTEN


def test_control_characters_in_a_reason_are_escaped() -> None:
    text = add_incident(HAND_WRITTEN, "x", entry("other/model", "b/fp8", reason="bell\x07 tab\t é"))
    assert 'reason: "bell\\a tab\\t é"' in text
    [new] = [e for e in parse_exclusions(text, INCIDENT, "x") if e.provider == "b/fp8"]
    assert new.reason == "bell\x07 tab\t é"


def test_a_flow_style_section_is_left_to_a_person() -> None:
    with pytest.raises(StoreError, match="by hand"):
        add_incident('"m/x": []\n', "x", entry("m/x", "a/fp8"))
    flow = '"m/x": [{provider: "a/fp8", reason: "r", added_at: "2026-11-28T00:00:00Z"}]\n'
    with pytest.raises(StoreError, match="not a block list.*by hand"):
        remove_incident(flow, "x", "m/x", "a/fp8")


def test_a_broken_file_is_refused_with_its_line(f: Files) -> None:
    f.incidents.write_text(HAND_WRITTEN + "  - provider: [\n")
    before = f.incidents.read_text()
    code, _, err = f.canary("incident", "add", "--model", MODEL, "--provider", "b/fp8", "--reason", "r")
    assert code == 2 and str(f.incidents) in err and "line" in err and f.incidents.read_text() == before


def test_a_comment_and_the_key_order_survive_an_add_and_a_removal(f: Files) -> None:
    # Models out of alphabetical order, an entry's keys in a person's order, a comment between them.
    unordered = ('"zeta/model":\n  - reason: "slow"   # measured 2026-11-28\n    provider: "z/fp8"\n'
                 '    added_at: "2026-11-28T00:00:00Z"\n# keep zeta first\n"alpha/model": []\n')
    f.incidents.write_text(unordered, encoding="utf-8")
    assert f.canary("incident", "add", "--model", "zeta/model", "--provider", "y/fp8", "--reason", "r",
                    "--now", iso(T0))[0] == 0
    added = f.incidents.read_text()
    assert added == unordered.replace("# keep zeta first\n", BOREALIS.replace("borealis/bf16", "y/fp8")
                                      + "# keep zeta first\n")
    assert f.canary("incident", "remove", "--model", "zeta/model", "--provider", "y/fp8", "--reason", "done")[0] == 0
    assert f.incidents.read_text() == unordered


def test_an_endpoint_no_discovery_listed_is_added_with_a_warning_naming_the_closest(f: Files) -> None:
    # Issue 38: `cindr/fp8` went in without a word. The judged round's history lists the model's hosts.
    assert f.canary("judge", str(f.results("r.json")), "--now", iso(T0))[0] == 0
    code, _, err = f.canary("incident", "add", "--model", MODEL, "--provider", "cirus/fp8", "--reason", "r",
                            "--now", iso(T0))
    assert code == 0 and "cirus/fp8" in f.incidents.read_text()  # a warning, not a refusal
    assert f"warning: cirus/fp8 is not among the 5 endpoints of {MODEL}" in err
    assert "(closest: cirrus/fp8, " in err
    assert f.canary("incident", "add", "--model", MODEL, "--provider", "dune/fp16", "--reason", "r",
                    "--now", iso(T0))[2] == ""
