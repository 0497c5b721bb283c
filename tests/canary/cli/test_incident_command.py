"""`canary incident add|remove` edits one entry and keeps every other byte of the file."""

from __future__ import annotations

from pathlib import Path

import pytest
from judge_cli_support import MODEL, T0, Files, files_in, iso

from canary.state.incidents import add_incident, remove_incident
from core.layer_files import load_exclusions, parse_exclusions
from core.layers import INCIDENT, Exclusion
from core.store import StoreError

HAND_WRITTEN = '''# Incidents: see the runbook.   <- a person's comment
"deepseek/deepseek-chat-v3-0324":
  # aurora: the 2026-11-29 engine update, ticket OPS-12
  - provider: aurora/fp8
    reason: filters roleplay   # inline comment
    added_at: 2026-11-29T22:30:00Z

# other models below, keep alphabetical
"other/model":
    -   provider: "x/fp8"
        reason: "slow"
        added_at: "2026-11-28T00:00:00Z"
# trailing comment
'''


@pytest.fixture
def f(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Files:
    files = files_in(tmp_path, capsys)
    files.incidents.parent.mkdir(parents=True)
    files.incidents.write_text(HAND_WRITTEN, encoding="utf-8")
    return files


def _comments(text: str) -> list[str]:
    return [line for line in text.splitlines() if "#" in line]


def test_add_keeps_comments_and_formatting(f: Files) -> None:
    code, _, _ = f.canary("incident", "add", "--model", MODEL, "--provider", "borealis/bf16", "--reason",
                          'mixes "pt" and es\nbadly', "--expires", "2026-12-01T00:00:00Z", "--by", "alice",
                          "--now", iso(T0))
    assert code == 0
    text = f.incidents.read_text()
    assert _comments(text) == _comments(HAND_WRITTEN)
    assert text.startswith(HAND_WRITTEN.split("\n# other models")[0].rstrip("\n"))
    entries = load_exclusions(f.incidents, INCIDENT)
    [new] = [e for e in entries if e.provider == "borealis/bf16"]
    assert (new.model, new.reason, new.added_by, new.since) == (MODEL, 'mixes "pt" and es\nbadly', "alice", T0)
    assert [line["action"] for line in f.audit_lines()] == ["incident_add"]


def test_add_then_remove_gives_back_the_original_bytes(f: Files) -> None:
    f.canary("incident", "add", "--model", MODEL, "--provider", "borealis/bf16", "--reason", "r", "--now", iso(T0))
    code, _, _ = f.canary("incident", "remove", "--model", MODEL, "--provider", "borealis/bf16", "--reason", "fixed")
    assert code == 0 and f.incidents.read_text() == HAND_WRITTEN
    assert [line["action"] for line in f.audit_lines()] == ["incident_add", "incident_remove"]


def test_add_for_a_new_model_appends_a_section(f: Files) -> None:
    f.canary("incident", "add", "--model", "new/model:free", "--provider", "c/fp8", "--reason", "r", "--now", iso(T0))
    text = f.incidents.read_text()
    assert text.startswith(HAND_WRITTEN)
    assert [e.provider for e in load_exclusions(f.incidents, INCIDENT) if e.model == "new/model:free"] == ["c/fp8"]


def test_add_follows_the_sections_indentation() -> None:
    entry = Exclusion("other/model", "y/fp8", INCIDENT, "r", since=T0)
    text = add_incident(HAND_WRITTEN, "incidents.yaml", entry)
    assert '    -   provider: "x/fp8"' in text and '    - provider: "y/fp8"' in text


def test_removing_the_last_entry_of_a_model_removes_its_key_and_keeps_comments(f: Files) -> None:
    f.canary("incident", "remove", "--model", MODEL, "--provider", "aurora/fp8", "--reason", "fixed")
    text = f.incidents.read_text()
    assert MODEL not in text and "# other models below" in text and "# Incidents: see the runbook." in text
    assert [e.model for e in load_exclusions(f.incidents, INCIDENT)] == ["other/model"]


def test_add_into_an_empty_commented_file(tmp_path: Path) -> None:
    header = "# only a header\n# and comments\n"
    text = add_incident(header, "x", Exclusion(MODEL, "a/fp8", INCIDENT, "r", since=T0))
    assert text.startswith(header) and len(parse_exclusions(text, INCIDENT, "x")) == 1
    assert remove_incident(text, "x", MODEL, "a/fp8") == header


def test_the_shipped_incident_file_accepts_an_add() -> None:
    shipped = (Path(__file__).resolve().parents[3] / "exclusions" / "incidents.yaml").read_text()
    text = add_incident(shipped, "incidents.yaml", Exclusion(MODEL, "a/fp8", INCIDENT, "r", since=T0))
    assert text.startswith(shipped)


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


def test_a_flow_style_section_is_left_to_a_person() -> None:
    with pytest.raises(StoreError, match="by hand"):
        add_incident('"m/x": []\n', "x", Exclusion("m/x", "a/fp8", INCIDENT, "r", since=T0))


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
    assert added.index('"zeta/model"') < added.index("# keep zeta first") < added.index('"alpha/model"')
    assert added.index('reason: "slow"   # measured') < added.index('provider: "z/fp8"')
    assert f.canary("incident", "remove", "--model", "zeta/model", "--provider", "y/fp8", "--reason", "done")[0] == 0
    assert f.incidents.read_text() == unordered
