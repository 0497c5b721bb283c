"""People's files (builtin, incidents, silences, maintenance) through their one editor: an entry in and
out gives back the very bytes (CRLF and a byte-order mark included), and edits run at once by separate
processes lose no entry and no audit line."""

from __future__ import annotations

import difflib
import multiprocessing
from pathlib import Path

import pytest
from judge_cli_support import MODEL, T0, Files, files_in, iso

from canary.state import people_yaml
from canary.state.maintenance import MaintenanceEntry, load_maintenance
from canary.state.silences import SilenceEntry, load_silences
from core.layer_files import read_layer, walk
from core.layers import BUILTIN, INCIDENT, BuiltinEntry, IncidentEntry, layer_named
from core.store import StoreError

ROOT = Path(__file__).resolve().parents[3]
SILENCE = SilenceEntry(model=MODEL, provider="a/fp8", until=iso(T0), reason="r", author="alice", added_at=iso(T0))
WINDOW = MaintenanceEntry(provider="dune", every="tuesday", start="02:00", end="03:00", reason="r", author="bob")
# Each kind's file, an entry, its model key (None: a list file), and a hand-written file with comments.
KINDS = {
    "builtin": (BuiltinEntry(provider="a/fp8", reason="r"), MODEL,
                f'# header\n"{MODEL}":\n  # why\n  - provider: x/fp8\n    reason: slow   # measured\n\n# end\n'),
    "incidents": (IncidentEntry(provider="a/fp8", reason="r", added_at=iso(T0)), MODEL,
                  f'# header\n"{MODEL}":\n  - provider: "x/fp8"   # ticket 12\n    reason: "slow"\n'
                  f'    added_at: "{iso(T0)}"\n# end\n'),
    "silences": (SILENCE, None,
                 f'# header\n- model: "{MODEL}"   # ticket 4411\n  until: "{iso(T0)}"\n  reason: "r"\n'
                 f'  author: "bob"\n  added_at: "{iso(T0)}"\n\n# end\n'),
    "maintenance": (WINDOW, None,
                    '# header\n- provider: "cinder"\n  every: "day"   # their terms\n  start: "01:00"\n'
                    '  end: "02:00"\n  reason: "r"\n  author: "bob"\n# end\n'),
}


def _round_trip(text: str, name: str) -> str:
    """`text` with the kind's entry added, then removed again."""
    entry, model, _ = KINDS[name]
    added = people_yaml.add(text, name, entry, model)
    assert [w.entry for w in walk(added, name, type(entry))].count(entry) == 1
    return people_yaml.remove(added, name, type(entry), lambda w: w.entry == entry)


@pytest.mark.parametrize("name", list(KINDS))
def test_an_entry_in_and_out_gives_back_the_shipped_files_bytes(name: str) -> None:
    shipped = (ROOT / "exclusions" / f"{name}.yaml").read_text(encoding="utf-8")
    assert _round_trip(shipped, name) == shipped


@pytest.mark.parametrize("name", list(KINDS))
@pytest.mark.parametrize(("bom", "newline"), [("", "\n"), ("", "\r\n"), ("\ufeff", "\r\n")], ids=["lf", "crlf",
                                                                                                 "bom-crlf"])
def test_a_hand_written_file_keeps_its_comments_line_endings_and_byte_order_mark(name: str, bom: str,
                                                                                  newline: str) -> None:
    entry, model, text = KINDS[name]
    written = bom + text.replace("\n", newline)
    added = people_yaml.add(written, name, entry, model)
    steps = difflib.SequenceMatcher(a=written.splitlines(), b=added.splitlines(), autojunk=False).get_opcodes()
    assert [op for op, *_ in steps if op != "equal"] == ["insert"]   # the entry's lines, every other line kept
    assert added.count("\r\n") == (added.count("\n") if newline == "\r\n" else 0)
    assert people_yaml.remove(added, name, type(entry), lambda w: w.entry == entry) == written


def test_a_file_mixing_line_endings_is_refused_naming_the_problem() -> None:
    entry, model, text = KINDS["incidents"]
    with pytest.raises(StoreError, match="mixes line endings.*Nothing was written"):
        people_yaml.add(text.replace("\n", "\r\n", 1), "incidents.yaml", entry, model)


def test_a_silence_expired_in_place_keeps_its_line_and_its_comment() -> None:
    _, _, text = KINDS["silences"]
    later = iso(T0).replace("22:", "23:")
    changed = people_yaml.change(text.replace("\n", "\r\n"), "s", SilenceEntry, lambda w: True, {"until": later})
    assert changed == text.replace(f'until: "{iso(T0)}"', f'until: "{later}"').replace("\n", "\r\n")


def test_incident_add_keeps_a_crlf_file_crlf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = files_in(tmp_path, capsys)
    f.incidents.parent.mkdir(parents=True)
    text = KINDS["incidents"][2].replace("\n", "\r\n")
    f.incidents.write_bytes(text.encode())
    assert f.canary("incident", "add", "--model", MODEL, "--provider", "b/fp8", "--reason", "r", "--now",
                    iso(T0))[0] == 0
    after = f.incidents.read_bytes().decode()
    assert after.startswith(text.removesuffix("# end\r\n")) and after.count("\n") == after.count("\r\n")
    assert f.canary("incident", "remove", "--model", MODEL, "--provider", "b/fp8", "--reason", "done")[0] == 0
    assert f.incidents.read_bytes() == text.encode()


def _at_once(f: Files, commands: list[list[str]]) -> None:
    """Run each `canary` command line in a process of its own (forked: no start-up to pay), all started
    before any is waited for."""
    def run(args: list[str]) -> None:
        code, _, err = f.canary(*args)
        assert code == 0, err

    running = [multiprocessing.get_context("fork").Process(target=run, args=(c,)) for c in commands]
    for p in running:
        p.start()
    for p in running:
        p.join()
    assert [p.exitcode for p in running] == [0] * len(commands)


def test_sixteen_incident_adds_at_once_keep_every_entry_and_audit_line(tmp_path: Path) -> None:
    f = files_in(tmp_path)
    f.incidents.parent.mkdir(parents=True)
    f.incidents.write_text("# header\n", encoding="utf-8")
    _at_once(f, [["incident", "add", "--model", MODEL, "--provider", f"h{i}/fp8", "--reason", "r", "--now", iso(T0)]
                 for i in range(16)])
    added = read_layer(layer_named(INCIDENT), f.incidents)
    assert sorted(e.provider for e in added) == sorted(f"h{i}/fp8" for i in range(16))
    assert len(f.audit_lines()) == 16 and f.incidents.read_text().startswith("# header\n")


def test_ten_silence_adds_and_maintenance_adds_at_once_keep_every_entry(tmp_path: Path) -> None:
    f = files_in(tmp_path)
    _at_once(f, [["silence", "add", "--model", MODEL, "--provider", f"h{i}/fp8", "--until", "2h", "--reason", "r",
                  "--author", "a", "--now", iso(T0)] for i in range(10)]
             + [["maintenance", "add", "--provider", f"h{i}", "--every", "day", "--start", "01:00", "--end", "02:00",
                 "--reason", "r", "--author", "a"] for i in range(6)])
    assert sorted(s.provider or "" for s in load_silences(f.silences)) == sorted(f"h{i}/fp8" for i in range(10))
    assert sorted(w.provider for w in load_maintenance(f.maintenance)) == sorted(f"h{i}" for i in range(6))


def test_the_builtin_file_reads_through_the_same_walk() -> None:
    _, _, text = KINDS["builtin"]
    [entry] = walk(text, "builtin.yaml", BuiltinEntry)
    assert (entry.model, entry.entry, entry.line) == (MODEL, BuiltinEntry(provider="x/fp8", reason="slow"), 4)
    with pytest.raises(StoreError, match="line 4: .*reason: required key is blank"):
        walk(text.replace("reason: slow", 'reason: " "'), "builtin.yaml", BuiltinEntry)
    _, _, listed = KINDS["silences"]
    with pytest.raises(StoreError, match="line 3: provider: no value; name one, or leave the key out"):
        walk(listed.replace("   # ticket 4411\n", "\n  provider:\n"), "silences.yaml", SilenceEntry)
    assert walk(listed.replace("   # ticket 4411\n", "\n  provider: cinder/fp8\n"), "s", SilenceEntry)[0].entry.provider
    assert read_layer(layer_named(BUILTIN), ROOT / "exclusions" / "builtin.yaml") == ()
