"""The pure parts of the status page: strips, endpoint states, badges, the data block, the feeds."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from xml.etree import ElementTree as ET

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from canary.outputs.site import strips
from canary.outputs.site.badges import (
    GREEN,
    GREY,
    ORANGE,
    RED,
    YELLOW,
    badge_message,
    badge_paths,
    badge_svg,
)
from canary.outputs.site.endpoints import RoutingState, endpoint_state
from canary.outputs.site.feeds import ATOM_NS, atom_feed, entry_id
from canary.outputs.site.page import render_index, script_json
from core.layers import Exclusion
from judge.suspension.decisions import Action
from judge.suspension.state import ProviderState, Suspension

T = datetime(2026, 11, 29, 0, 0, tzinfo=UTC)
HOUR = timedelta(hours=1)


# -- strips ------------------------------------------------------------------------------------

def test_a_strip_has_one_letter_per_bucket_and_the_worst_round_wins() -> None:
    rounds = [strips.StripRound(T + 10 * timedelta(minutes=1), "clean"),
              strips.StripRound(T + timedelta(minutes=40), "failed", ("language:leading_garbage",)),
              strips.StripRound(T + HOUR + timedelta(minutes=5), "frozen", ("latency:http_429",)),
              strips.StripRound(T + 3 * HOUR, "clean")]
    s = strips.strip(rounds, (), start=T, buckets=5, width=HOUR)
    assert s.letters == "fz.c."
    assert s.detail == {0: (1, 1, 0, "language:leading_garbage"), 1: (0, 0, 1, "latency:http_429")}


def test_a_suspension_colours_every_bucket_it_touches_even_without_rounds() -> None:
    rounds = [strips.StripRound(T + 2 * HOUR, "clean")]
    interval = strips.Interval(T + HOUR + timedelta(minutes=30), T + 3 * HOUR, "enforce")
    observe = strips.Interval(T + 4 * HOUR, T + 4 * HOUR + timedelta(minutes=1), "observe")
    assert strips.strip(rounds, [interval, observe], start=T, buckets=6, width=HOUR).letters == ".SS.W."


def test_rounds_and_suspensions_outside_the_frame_are_left_out() -> None:
    rounds = [strips.StripRound(T - HOUR, "failed"), strips.StripRound(T + 9 * HOUR, "failed")]
    interval = strips.Interval(T - 5 * HOUR, T - HOUR, "enforce")
    assert strips.strip(rounds, [interval], start=T, buckets=3, width=HOUR).letters == "..."


def test_suspension_intervals_end_at_the_restore_or_at_their_until() -> None:
    decisions = [(T, "suspend", (T + 24 * HOUR).isoformat()), (T + 5 * HOUR, "restore", None),
                 (T + 10 * HOUR, "would_suspend", (T + 12 * HOUR).isoformat()),
                 (T + 20 * HOUR, "suspend", (T + 48 * HOUR).isoformat())]
    got = strips.suspension_intervals(decisions, now=T + 30 * HOUR)
    assert got == (strips.Interval(T, T + 5 * HOUR, "enforce"),
                   strips.Interval(T + 10 * HOUR, T + 12 * HOUR, "observe"),
                   strips.Interval(T + 20 * HOUR, T + 30 * HOUR, "enforce"))   # still running: ends now


# -- endpoint states ---------------------------------------------------------------------------

def _suspended(mode: str, until: datetime) -> ProviderState:
    return ProviderState(failed_streak=2, suspension=Suspension(T, until, 1, mode, "2 failed rounds in a row"),
                         last_reasons=("structured: fail: not JSON",))


@pytest.mark.parametrize(("ps", "people", "actions", "state"), [
    pytest.param(None, [], [], RoutingState.ACTIVE, id="never-seen"),
    pytest.param(ProviderState(), [], [], RoutingState.ACTIVE, id="idle"),
    pytest.param(_suspended("enforce", T + 24 * HOUR), [], [], RoutingState.SUSPENDED, id="suspended"),
    pytest.param(_suspended("observe", T + 24 * HOUR), [], [], RoutingState.WOULD_SUSPEND, id="observe"),
    pytest.param(_suspended("enforce", T - HOUR), [], [], RoutingState.ACTIVE, id="expired"),
    pytest.param(ProviderState(failed_streak=3), [], ["floor_held"], RoutingState.FLOOR_HELD, id="floor-held"),
    pytest.param(_suspended("enforce", T + HOUR), [Exclusion("m", "p", "incident", "broken")], [],
                 RoutingState.EXCLUDED, id="person-wins"),
])
def test_the_state_of_an_endpoint(ps: ProviderState | None, people: list[Exclusion], actions: list[str],
                                  state: str) -> None:
    assert endpoint_state(ps, people, actions, now=T).state == state


def test_a_suspension_says_until_when_and_why() -> None:
    got = endpoint_state(_suspended("enforce", T + 24 * HOUR), [], [], now=T)
    assert got.until == T + 24 * HOUR and got.reasons == ("2 failed rounds in a row", "structured: fail: not JSON")


def test_a_builtin_exclusion_is_named_before_an_incident() -> None:
    people = [Exclusion("m", "p", "incident", "today"), Exclusion("m", "p", "builtin", "known bug")]
    got = endpoint_state(None, people, [], now=T)
    assert got.excluded_by == people[1] and got.reasons == ("builtin: known bug",)


# -- badges ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("statuses", "message", "colour"), [
    (["healthy", "suspended", "suspended", "degraded"], "2 suspended", RED),
    (["healthy", "would_suspend"], "1 would suspend", ORANGE),
    (["healthy", "floor_held"], "1 floor held", ORANGE),
    (["healthy", "degraded"], "1 degraded", YELLOW),
    (["healthy", "healthy", "excluded"], "2/3 healthy", GREEN),
    (["excluded"], "1 excluded", GREY),
    ([], "no data", GREY),
])
def test_a_badge_names_the_worst_status_and_how_many(statuses: list[str], message: str, colour: str) -> None:
    assert badge_message(statuses) == (message, colour)


def test_a_badge_is_an_svg_with_its_text_escaped() -> None:
    svg = badge_svg('<script>&"', RED)
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert texts == ["canary", "canary", '<script>&"', '<script>&"'] and "<script>" not in svg


def test_a_badge_never_takes_a_colour_that_is_not_one() -> None:
    assert f'fill="{GREY}"' in badge_svg("x", 'red" onload="alert(1)')


def test_badge_paths_mirror_model_ids_and_never_collide() -> None:
    paths = badge_paths(["deepseek/deepseek-chat-v3-0324", "deepseek/deepseek-chat-v3-0324:free", "a//b", "a/~/b"])
    assert paths["deepseek/deepseek-chat-v3-0324"] == "badges/deepseek/deepseek-chat-v3-0324.svg"
    assert paths["deepseek/deepseek-chat-v3-0324:free"] == "badges/deepseek/deepseek-chat-v3-0324~free.svg"
    assert len(set(paths.values())) == len(paths)
    assert all(".." not in p and p.startswith("badges/") for p in paths.values())


# -- the page's data block -----------------------------------------------------------------------

@given(st.text())
@settings(max_examples=300)
def test_any_text_in_the_data_block_reads_back_exactly_and_cannot_end_the_block(text: str) -> None:
    block = script_json({"reason": text, "nested": [text, {"k": text}]})
    assert json.loads(block) == {"reason": text, "nested": [text, {"k": text}]}
    assert "<" not in block and ">" not in block and "&" not in block


def test_the_page_holds_its_data_in_one_inert_block_under_a_strict_policy() -> None:
    hostile = '</script><script>alert(1)</script><!--'
    html = render_index({"reason": hostile})
    assert html.count("</script>") == 3   # the data block, echarts.min.js, app.js: nothing else closes
    assert re.search(r"<script>", html) is None   # no inline script
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html)
    assert csp is not None and "script-src 'self'" in csp.group(1) and "unsafe" not in csp.group(1)
    assert "default-src 'none'" in csp.group(1)


# -- the Atom feed ---------------------------------------------------------------------------------

def _decision(**kw: object) -> dict[str, object]:
    d: dict[str, object] = {"round_id": "20261129T223000Z-3f9a1c", "at": "2026-11-29T22:30:21Z",
                            "model": "deepseek/deepseek-chat-v3-0324", "provider": "cinder/fp8", "action": "suspend",
                            "rule": "failed_streak", "reason": "2 failed rounds in a row",
                            "until": "2026-11-30T22:30:21Z",
                            "evidence": [["language", "fail", "leading garbage: '_,복도'"]], "card": None}
    d.update(kw)
    return d


def test_the_atom_feed_is_well_formed_atom_with_one_entry_per_decision() -> None:
    hostile = "</content><script>alert(1)</script>&amp; \x07\x00 \ud800 ]]>"
    feed = ET.fromstring(atom_feed([_decision(), _decision(action="restore", reason=hostile, until=None)],
                                   updated="2026-11-29T23:00:00Z", base_url="https://o.github.io/r/"))
    ns = {"a": ATOM_NS}
    assert feed.tag == f"{{{ATOM_NS}}}feed"
    for required in ("id", "title", "updated", "author/a:name"):
        assert feed.find(f"a:{required}", ns) is not None
    entries = feed.findall("a:entry", ns)
    assert len(entries) == 2
    for entry in entries:
        for required in ("id", "title", "updated", "content"):
            assert (entry.findtext(f"a:{required}", namespaces=ns) or "").strip()
    content = entries[1].findtext("a:content", namespaces=ns) or ""
    assert "</content><script>alert(1)</script>&amp;" in content and "\x00" not in content and "\x07" not in content
    assert feed.find("a:link[@rel='self']", ns).get("href") == "https://o.github.io/r/decisions.atom"  # type: ignore[union-attr]


@pytest.mark.parametrize("action", list(Action), ids=str)
def test_every_actions_feed_entry_reads_its_label_not_its_value(action: Action) -> None:
    # The feed once keyed its words by "model_wide" where the action is model_wide_guard: that
    # entry read the raw value. Every action now reads the label on its Action member.
    feed = ET.fromstring(atom_feed([_decision(action=action.value)], updated="2026-11-29T23:00:00Z",
                                   base_url="https://o.github.io/r/"))
    title = feed.findtext("a:entry/a:title", namespaces={"a": ATOM_NS}) or ""
    assert title == f"cinder/fp8 (deepseek/deepseek-chat-v3-0324): {action.label}"


def test_entry_ids_are_stable_and_differ_by_round_model_provider_and_action() -> None:
    base = _decision()
    assert entry_id(base) == entry_id(dict(base))
    ids = {entry_id(_decision(**change)) for change in (
        {}, {"round_id": "20261129T230000Z-aaaaaa"}, {"model": "other/model"}, {"provider": "dune/int4"},
        {"action": "would_suspend"})}
    assert len(ids) == 5 and all(i.startswith("urn:canary:decision:") and " " not in i for i in ids)


def test_the_billed_over_listed_cell_reads_the_state_s_billing_window() -> None:
    from canary.outputs.site.billing import billing_cell
    from judge.suspension.billing_window import BillingWindow

    assert billing_cell(None) is None and billing_cell(ProviderState()) is None
    cell = billing_cell(ProviderState(billing=BillingWindow(((30_000, 20_000), (15_000, 10_000)))))
    assert cell == {"billed": 0.000045, "listed": 0.00003, "ratio": 1.5, "rounds": 2}
    assert billing_cell(ProviderState(billing=BillingWindow(((0, 0),)))) == {
        "billed": 0.0, "listed": 0.0, "ratio": None, "rounds": 1}  # a free model: nothing to divide by
