"""A span of a folder of production records: a file named for a window far outside the span is never opened."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from canary.state.production_files import records_between

DAY = datetime(2026, 12, 1, tzinfo=UTC)


def test_only_the_files_named_near_the_span_are_opened(tmp_path: Path) -> None:
    folder = tmp_path / "chat-eu-1"
    folder.mkdir()
    for name in ("2026-11-20T100000Z", "2026-12-01T100000Z", "2026-12-09T100000Z", "written-by-hand"):
        (folder / f"{name}.json").write_text("not a record", encoding="utf-8")   # refused if opened

    records, refused = records_between(tmp_path, DAY, DAY + timedelta(days=1))

    assert records == []
    assert sorted(Path(r.split(": ")[1]).name for r in refused) == ["2026-12-01T100000Z.json", "written-by-hand.json"]
