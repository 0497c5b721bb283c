"""The round's last step masks the key in any file it wrote (a net under the client's own scrubbing)."""

from __future__ import annotations

from pathlib import Path

from core.upstream import MASK, Upstream
from probes.pytest_plugin.key_sweep import sweep

KEY = "sk-or-v1-sweep-0123456789abcdef"


def test_every_file_holding_the_key_is_masked_and_the_others_are_left_alone(tmp_path: Path) -> None:
    (tmp_path / "allure").mkdir()
    leaked, clean, junit = tmp_path / "allure" / "a-attachment.txt", tmp_path / "results.json", tmp_path / "j.xml"
    leaked.write_text(f"Authorization: Bearer {KEY}\n", encoding="utf-8")
    clean.write_text("{}", encoding="utf-8")
    junit.write_text(f"<x>{KEY}</x>", encoding="utf-8")
    before = clean.stat().st_mtime_ns

    changed = sweep([tmp_path / "allure", clean, junit, tmp_path / "absent"], Upstream(api_key=KEY))

    assert changed == [leaked, junit]
    assert leaked.read_text(encoding="utf-8") == f"Authorization: Bearer {MASK}\n"
    assert junit.read_text(encoding="utf-8") == f"<x>{MASK}</x>" and clean.stat().st_mtime_ns == before


def test_without_a_key_nothing_is_read(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("anything", encoding="utf-8")
    assert sweep([tmp_path], Upstream()) == []
