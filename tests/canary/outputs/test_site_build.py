"""`canary site --out DIR` on a history the real judge recorded: the files, the feeds, the escaping."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import jsonschema
import pytest
from history_support import MODEL
from site_support import (
    BUILTIN,
    FLOOR,
    HEALTHY,
    HOSTILE,
    HOSTILE_TAG,
    INCIDENT,
    SLOW,
    SUSPENDED,
    UNSETTLED,
    build,
    data_block,
    judged_world,
)

from canary.cli.main import main
from canary.outputs.site.feeds import ATOM_NS
from core.times import parse_time

NEWEST = datetime(2026, 11, 29, 23, 30, tzinfo=UTC)
SOON = NEWEST + timedelta(minutes=10)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("world")
    judged_world(root, NEWEST)
    return root


@pytest.fixture(scope="module")
def site(world: Path) -> Path:
    out = world / "site"
    assert build(world, world / "canary.yaml", out, SOON) == 0
    return out


def status(site: Path) -> dict[str, Any]:
    return dict(json.loads((site / "status.json").read_text(encoding="utf-8")))


def page_data(site: Path) -> dict[str, Any]:
    return dict(json.loads(data_block((site / "index.html").read_text(encoding="utf-8"))))


def test_the_command_writes_the_page_its_assets_the_feeds_and_a_badge(site: Path) -> None:
    for name in ("index.html", "status.json", "status.schema.json", "decisions.atom", "assets/app.js",
                 "assets/style.css", "assets/echarts.min.js", f"badges/{MODEL}.svg"):
        assert (site / name).is_file(), name
    html = (site / "index.html").read_text(encoding="utf-8")
    assert '<script src="assets/echarts.min.js" defer></script>' in html and "https://" not in html.split("<body>")[0]


def test_status_json_follows_its_published_schema(site: Path) -> None:
    schema = json.loads((site / "status.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(status(site))


@pytest.mark.parametrize(("provider", "state", "tier"), [
    (HEALTHY, "active", "healthy"),
    (SLOW, "active", "degraded"),
    (SUSPENDED, "suspended", "suspended"),
    (BUILTIN, "excluded", "healthy"),
    (INCIDENT, "excluded", "healthy"),
    (FLOOR, "floor_held", "failing"),
    (UNSETTLED, "active", "degraded"),
])
def test_each_endpoint_has_its_state_and_tier(site: Path, provider: str, state: str, tier: str) -> None:
    endpoint = status(site)["models"][MODEL]["endpoints"][provider]
    assert (endpoint["state"], endpoint["tier"]) == (state, tier)


def test_a_suspension_says_until_when_and_is_in_provider_ignore(site: Path) -> None:
    endpoint = status(site)["models"][MODEL]["endpoints"][SUSPENDED]
    until = parse_time(endpoint["until"], "until")
    assert endpoint["in_provider_ignore"] and timedelta(hours=23) < until - NEWEST < timedelta(days=1, hours=1)
    slow = status(site)["models"][MODEL]["endpoints"][SLOW]
    assert slow["tier_reasons"][0].startswith("slow: TTFT p95") and slow["ttft_p95_s"] > 5
    assert slow["tokens_per_s_p50"] == 50.0


def test_provider_ignore_is_what_canary_ignore_says(world: Path, site: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["--config", str(world / "canary.yaml"), "ignore", "--model", MODEL,
                 "--now", SOON.isoformat()]) == 0
    expected = json.loads(capsys.readouterr().out)
    assert status(site)["models"][MODEL]["provider_ignore"] == expected == sorted([SUSPENDED, BUILTIN, INCIDENT])


def test_a_hostile_tag_reaches_no_file_of_the_site(site: Path) -> None:
    for path in site.rglob("*"):
        if path.is_file() and path.name != "echarts.min.js":
            text = path.read_bytes().decode("utf-8", "replace")
            assert HOSTILE_TAG not in text and "evil/" not in text, path


def test_hostile_reasons_stay_data_inside_the_page(site: Path) -> None:
    html = (site / "index.html").read_text(encoding="utf-8")
    data = page_data(site)
    reasons = [r for m in data["models"] for e in m["endpoints"] for r in e["reasons"]]
    assert any(HOSTILE.split(" ")[0] in r for r in reasons), "the hostile reason must reach the page as data"
    assert html.count("</script>") == 3 and html.count("<script") == 3 and "<!--" not in html
    block = data_block(html)
    assert "<" not in block and ">" not in block   # the markup of upstream text is JSON escapes inside
    shell = html.replace(block, "")
    assert "<img" not in shell and "<b>" not in shell and "onerror" not in shell and "alert(" not in shell


def test_the_atom_feed_is_atom_with_stable_ids(world: Path, site: Path, tmp_path: Path) -> None:
    ns = {"a": ATOM_NS}
    feed = ET.parse(site / "decisions.atom").getroot()
    assert feed.tag == f"{{{ATOM_NS}}}feed"
    entries = feed.findall("a:entry", ns)
    actions = {e.find("a:category", ns).get("term") for e in entries}  # type: ignore[union-attr]
    assert {"suspend", "floor_held"} <= actions
    ids = [e.findtext("a:id", namespaces=ns) for e in entries]
    assert len(ids) == len(set(ids))
    hostile = [e.findtext("a:content", namespaces=ns) or "" for e in entries if HOSTILE.split(" ")[0] in
               (e.findtext("a:content", namespaces=ns) or "")]
    assert hostile, "the evidence with the hostile reason is in the feed, as text"
    later = tmp_path / "later"
    assert build(world, world / "canary.yaml", later, SOON + timedelta(hours=1)) == 0
    entries = ET.parse(later / "decisions.atom").getroot().findall("a:entry", ns)
    again = [e.findtext("a:id", namespaces=ns) for e in entries]
    assert again == ids


def test_the_badge_counts_the_suspension(site: Path) -> None:
    svg = ET.parse(site / "badges" / f"{MODEL}.svg").getroot()
    texts = [t.text for t in svg.iter("{http://www.w3.org/2000/svg}text")]
    assert texts[2] == "1 suspended" and status(site)["models"][MODEL]["badge"] == f"badges/{MODEL}.svg"


def test_the_page_carries_what_the_browser_needs_to_turn_stale(site: Path) -> None:
    data = page_data(site)
    assert data["newest_round"]["at"] == "2026-11-29T23:30:00Z" and data["stale_after_minutes"] == 90
    assert data["stale_at_generation"] is False and status(site)["stale_at_generation"] is False


@pytest.mark.parametrize(("minutes", "extra", "stale"), [
    (89, (), False), (91, (), True), (91, ("--stale-after", "120"), False)])
def test_staleness_at_generation_follows_the_threshold(world: Path, tmp_path: Path, minutes: int,
                                                      extra: tuple[str, ...], stale: bool) -> None:
    assert build(world, world / "canary.yaml", tmp_path / "s", NEWEST + timedelta(minutes=minutes), *extra) == 0
    assert status(tmp_path / "s")["stale_at_generation"] is stale


def test_an_empty_history_builds_a_page_that_says_so_and_is_stale(tmp_path: Path) -> None:
    config = tmp_path / "canary.yaml"
    config.write_text(f"models: [{MODEL}]\npaths:\n  state: {tmp_path / 'state' / 'canary-state.json'}\n",
                      encoding="utf-8")
    assert build(tmp_path, config, tmp_path / "site", SOON) == 0
    doc = status(tmp_path / "site")
    assert doc["newest_round"] is None and doc["stale_at_generation"] is True
    assert doc["models"][MODEL]["endpoints"] == {} and doc["models"][MODEL]["provider_ignore"] == []


def test_observe_mode_shows_would_suspend_outside_provider_ignore(tmp_path: Path) -> None:
    judged_world(tmp_path, NEWEST, mode="observe")
    assert build(tmp_path, tmp_path / "canary.yaml", tmp_path / "site", SOON) == 0
    model = status(tmp_path / "site")["models"][MODEL]
    assert model["endpoints"][SUSPENDED]["state"] == "would_suspend"
    assert SUSPENDED in model["would_ignore"] and SUSPENDED not in model["provider_ignore"]


def test_the_allure_report_is_published_beside_the_page(world: Path, tmp_path: Path) -> None:
    report = tmp_path / "allure-report"
    report.mkdir()
    (report / "index.html").write_text("<html>report</html>", encoding="utf-8")
    assert build(world, world / "canary.yaml", tmp_path / "s", SOON, "--allure", str(report)) == 0
    assert (tmp_path / "s" / "allure" / "index.html").read_text(encoding="utf-8") == "<html>report</html>"
    assert page_data(tmp_path / "s")["links"]["allure"] == "allure/index.html"


def test_without_an_allure_report_the_page_does_not_link_one(site: Path) -> None:
    assert page_data(site)["links"]["allure"] is None


def test_a_folder_without_a_report_is_refused(world: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert build(world, world / "canary.yaml", tmp_path / "s", SOON, "--allure", str(tmp_path)) == 2
    assert "no index.html" in capsys.readouterr().err and not (tmp_path / "s").exists()


def test_without_echarts_the_command_says_to_run_npm_ci(world: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    code = main(["--config", str(world / "canary.yaml"), "site", "--out", str(tmp_path / "s"),
                 "--echarts", str(tmp_path / "missing.js")])
    assert code == 2 and "npm ci" in capsys.readouterr().err


def test_a_damaged_history_file_is_named(world: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "world"
    shutil.copytree(world, copy, ignore=shutil.ignore_patterns("site"))
    config = copy / "canary.yaml"
    config.write_text((world / "canary.yaml").read_text(encoding="utf-8").replace(str(world), str(copy)),
                      encoding="utf-8")
    victim = sorted((copy / "state" / "history").glob("rounds/*/*/*.xz"))[0]
    victim.write_bytes(b"not xz")
    capsys.readouterr()
    assert build(copy, config, tmp_path / "s", SOON) == 2
    err = capsys.readouterr().err
    assert victim.name in err and "restore it from git" in err


def test_the_threshold_comes_from_canary_yaml(world: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "canary.yaml"
    text = (world / "canary.yaml").read_text(encoding="utf-8")
    config.write_text(text + "site:\n  stale_after_minutes: 5\n", encoding="utf-8")
    assert build(world, config, tmp_path / "s", SOON) == 0
    assert page_data(tmp_path / "s")["stale_after_minutes"] == 5 and status(tmp_path / "s")["stale_at_generation"]
    config.write_text(text + "site:\n  stale_after_minutes: soon\n", encoding="utf-8")
    capsys.readouterr()
    assert build(world, config, tmp_path / "t", SOON) == 2
    assert "site.stale_after_minutes: expected a number, got 'soon'" in capsys.readouterr().err


def test_the_state_and_history_can_come_from_a_checkout_of_the_state_branch(
        world: Path, site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "canary.yaml"  # the repository's layout: the state's path relative, the history's default
    config.write_text((world / "canary.yaml").read_text(encoding="utf-8").replace(
        str(world / "state" / "canary-state.json"), "state/canary-state.json").replace(
        str(world / "state" / "audit.jsonl"), "state/audit.jsonl"), encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # nothing of the judge's here: it all comes from the checkout
    assert build(world, config, tmp_path / "s", SOON, "--state-checkout", str(world)) == 0
    assert status(tmp_path / "s")["models"] == status(site)["models"]
    assert status(tmp_path / "s")["newest_round"] == status(site)["newest_round"] is not None


def test_before_the_first_round_a_missing_state_checkout_gives_a_page_without_rounds(
        world: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert build(world, world / "canary.yaml", tmp_path / "s", SOON, "--state-checkout", str(tmp_path / "absent")) == 0
    assert status(tmp_path / "s")["newest_round"] is None and "no suspensions" in capsys.readouterr().err


def test_a_silence_is_listed_on_the_page_as_data_and_changes_no_state(world: Path, site: Path, tmp_path: Path) -> None:
    from canary.state.silences import add_silence
    from judge.suspension.silences import Silence

    silences = tmp_path / "silences.yaml"
    silences.write_text(add_silence("", str(silences), Silence(MODEL, SUSPENDED, SOON + timedelta(hours=6), HOSTILE,
                                                                "alice", NEWEST)), encoding="utf-8")
    out = tmp_path / "site"
    assert build(world, world / "canary.yaml", out, SOON, "--silences", str(silences)) == 0
    [model] = page_data(out)["models"]
    assert model["silences"] == [{"provider": SUSPENDED, "until": "2026-11-30T05:40:00Z", "reason": HOSTILE,
                                  "author": "alice"}]
    block = data_block((out / "index.html").read_text(encoding="utf-8"))
    assert "<" not in block and ">" not in block
    assert status(out) == status(site) | {"generated_at": status(out)["generated_at"]}   # routing unchanged
    [before] = page_data(site)["models"]
    assert before["silences"] == [] and before["endpoints"] == model["endpoints"]
    later = tmp_path / "later"
    assert build(world, world / "canary.yaml", later, SOON + timedelta(hours=6), "--silences", str(silences)) == 0
    assert page_data(later)["models"][0]["silences"] == []   # ended by itself


def test_each_endpoint_carries_its_users_reports_and_its_leak_from_a_backends_records(tmp_path: Path) -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "judge"))
    from rules_factories import served_record

    from core.production import record_json

    config = judged_world(tmp_path, NEWEST)   # cirrus/fp8 suspended at NEWEST - 29 min
    end = NEWEST + timedelta(minutes=35)
    (tmp_path / "production" / "chat-eu-1").mkdir(parents=True)
    for record in (served_record(end, {"Cirrus": 9, "Aurora": 200, "Haze": 191}, reports={"Aurora": 3}),
                   served_record(end - timedelta(days=8), {"Cirrus": 40}, reports={"Aurora": 5})):   # too old
        path = tmp_path / "production" / "chat-eu-1" / f"{record.window_start:%Y-%m-%dT%H%M%SZ}.json"
        path.write_bytes(record_json(record))

    assert build(tmp_path, config, tmp_path / "site", end, "--production", str(tmp_path / "production")) == 0

    page = json.loads(data_block((tmp_path / "site" / "index.html").read_text(encoding="utf-8")))
    endpoints = {e["provider"]: e for e in page["models"][0]["endpoints"]}
    assert endpoints[HEALTHY]["reports"] == 3 and endpoints[SUSPENDED]["reports"] == 0
    assert endpoints[SUSPENDED]["leak"] == {"leaked": 9, "windows": 1, "worst": 0.0225, "alarm": True}
    assert endpoints[HEALTHY]["leak"] is None
