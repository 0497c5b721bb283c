"""Planning incident issues (pure): decisions + the issues found by their marker -> operations."""

from __future__ import annotations

import re
from typing import Any

from summary_data import record_of

from canary.integrations.github_issues import markers, render
from canary.integrations.github_issues.plan import (
    STATE_LABELS,
    Close,
    IssueComment,
    KnownIssue,
    Open,
    Relabel,
    Suspended,
    plan,
)
from judge.suspension.decisions import RoundDecisions

MODEL, TAG = "deepseek/deepseek-chat-v3-0324", "cinder/fp8"
LABEL = "canary-incident"


def decision(action: str, provider: str = TAG, model: str = MODEL, **extra: Any) -> dict[str, Any]:
    return {"model": model, "provider": provider, "action": action, "rule": "failed_streak",
            "reason": f"{action} reason",
            "evidence": [{"contract": "language", "outcome": "fail", "reason": "leading garbage"}], **extra}


def doc(*decisions: dict[str, Any], round_id: str = "r-2", mode: str = "enforce") -> RoundDecisions:
    return record_of({"round_id": round_id, "mode": mode, "decisions": list(decisions)})


def issue(number: int = 5, *, open: bool = True, events: tuple[str, ...] = ("r-1/suspend",),
          labels: tuple[str, ...] = (LABEL, STATE_LABELS["suspend"]), provider: str = TAG) -> KnownIssue:
    return KnownIssue(number, MODEL, provider, open, frozenset(labels), frozenset(events))


def test_a_suspension_opens_one_issue_with_marker_labels_and_evidence() -> None:
    [op] = plan(doc(decision("suspend", until="2026-12-01T00:00:00Z", rung=1)), [], label=LABEL,
                run_url="https://github.com/acme/chat/actions/runs/42")
    assert isinstance(op, Open) and op.labels == (LABEL, STATE_LABELS["suspend"])
    assert op.title == f"⛔ {TAG} suspended ({MODEL})"
    assert op.body.startswith(markers.issue_marker(MODEL, TAG, "r-2/suspend"))
    assert "[round r-2](https://github.com/acme/chat/actions/runs/42)" in op.body
    assert "| language | fail | leading garbage |" in op.body and "rung 1" in op.body


def test_a_would_suspend_in_observe_mode_opens_an_issue_labelled_as_such() -> None:
    [op] = plan(doc(decision("would_suspend"), mode="observe"), [], label=LABEL)
    assert isinstance(op, Open) and STATE_LABELS["would_suspend"] in op.labels
    assert "would have suspended (observe mode" in op.body


def test_a_decision_without_an_open_issue_opens_nothing_unless_it_suspends() -> None:
    assert plan(doc(decision("floor_held"), decision("restore"), decision("expired")), [], label=LABEL) == []


def test_whole_round_decisions_have_no_issue() -> None:
    decisions = doc(decision("model_wide_guard", provider="*"), decision("incomplete_round", provider="*", model="*"))
    assert plan(decisions, [issue()], label=LABEL) == []


def test_a_later_decision_comments_and_a_restore_closes() -> None:
    ops = plan(doc(decision("floor_held"), decision("restore")), [issue()], label=LABEL)
    assert [type(op) for op in ops] == [IssueComment, IssueComment, Close]
    first = ops[0]
    assert isinstance(first, IssueComment) and first.number == 5
    assert first.body.startswith(markers.comment_marker(MODEL, TAG, "r-2/floor_held"))
    assert ops[2] == Close(5, MODEL, TAG)


def test_expiry_and_lift_close_too() -> None:
    for action in ("expired", "lift"):
        assert isinstance(plan(doc(decision(action)), [issue()], label=LABEL)[-1], Close)


def test_rerunning_the_same_decisions_plans_nothing() -> None:
    assert plan(doc(decision("suspend"), round_id="r-1"), [issue(events=("r-1/suspend",))], label=LABEL) == []
    closed = issue(open=False, events=("r-1/suspend", "r-2/restore"))
    assert plan(doc(decision("restore")), [closed], label=LABEL) == []


def test_an_expiry_and_a_new_suspension_in_one_round_close_the_old_issue_and_open_a_new_one() -> None:
    ops = plan(doc(decision("expired"), decision("suspend", rung=2)), [issue()], label=LABEL)
    assert [type(op) for op in ops] == [IssueComment, Close, Open]


def test_a_rerun_of_that_round_finds_events_on_the_closed_issue_and_the_new_one() -> None:
    old = issue(5, open=False, events=("r-1/suspend", "r-2/expired"))
    new = issue(6, events=("r-2/suspend",))
    assert plan(doc(decision("expired"), decision("suspend", rung=2)), [old, new], label=LABEL) == []


def test_a_suspension_on_an_issue_left_open_comments_and_moves_the_state_label_and_the_title() -> None:
    observed = issue(labels=(LABEL, STATE_LABELS["would_suspend"], "needs-triage"), events=("r-1/would_suspend",))
    ops = plan(doc(decision("suspend")), [observed], label=LABEL)
    assert isinstance(ops[0], IssueComment) and ops[1] == Relabel(
        5, tuple(sorted({LABEL, STATE_LABELS["suspend"], "needs-triage"})), f"⛔ {TAG} suspended ({MODEL})")


def test_the_newest_of_several_open_issues_is_the_one_kept_up_to_date() -> None:
    ops = plan(doc(decision("restore")), [issue(3, events=()), issue(9, events=())], label=LABEL)
    assert ops[-1] == Close(9, MODEL, TAG)


def test_each_endpoint_has_its_own_issue() -> None:
    ops = plan(doc(decision("suspend", provider="a/fp8"), decision("suspend", provider="b/fp8")), [], label=LABEL)
    assert [op.provider for op in ops if isinstance(op, Open)] == ["a/fp8", "b/fp8"]


HOSTILE_TAG = "evil/x--> <img src=x onerror=alert(1)> @everyone [x](http://e) `"


def test_an_untrusted_tag_can_neither_close_the_marker_nor_inject_markdown() -> None:
    hostile = decision("suspend", provider=HOSTILE_TAG, reason="bad <script>alert(1)</script> | cell")
    [op] = plan(doc(hostile), [], label=LABEL)
    assert isinstance(op, Open)
    marker_line, rest = op.body.split("\n", 1)
    assert marker_line.count("-->") == 1 and marker_line.endswith(" -->") and "<img" not in marker_line
    [parsed] = markers.parse(op.body)
    assert (parsed["model"], parsed["endpoint"], parsed["event"]) == (MODEL, HOSTILE_TAG, "r-2/suspend")
    for raw in ("<img", "<script", "[x](", "-->", "| cell"):   # only escaped (a backslash before)
        assert not re.search(r"(?<!\\)" + re.escape(raw), rest), raw
    assert "\\@everyone" in rest and "\\<script\\>" in rest
    assert not any(ch in op.title for ch in "<>[]@`")


def test_a_marker_whose_key_does_not_match_its_fields_is_not_trusted() -> None:
    forged = markers.issue_marker(MODEL, TAG, "r-1/suspend").replace(markers.incident_key(MODEL, TAG), "0" * 20)
    assert markers.parse(forged) == []
    assert markers.parse("<!-- canary-incident key=abc -->") == []


def test_an_excerpt_with_backticks_cannot_close_its_fence() -> None:
    issue = render.IssueEvent.of(doc(decision("suspend")).decisions[0])
    body = render.issue_body(issue, event="r/suspend", round_id="r", mode="enforce", run_url=None,
                             excerpts=[("language", "```\n# Heading <b>x</b> ````` end")])
    lines = body.splitlines()
    start = lines.index("``````text")
    assert lines[start + 2] == "``````" and "<b>x</b>" in lines[start + 1]


def test_a_run_url_that_is_not_a_plain_http_url_is_not_linked() -> None:
    assert render.round_link("r-1", "javascript:alert(1)") == "round r-1"
    assert render.round_link("r-1", "https://x/y) [z](http://evil") == "round r-1"


# --- healing from the judge's state (a sync that was cut short) ------------------------------

def suspended(provider: str = TAG, mode: str = "enforce") -> Suspended:
    return Suspended(MODEL, provider, mode, "2026-11-29T22:00:00Z", "2026-11-30T22:00:00Z", 1, "2 failed rounds")


def test_an_active_suspension_without_an_issue_opens_one() -> None:
    [op] = plan(doc(), [], label=LABEL, suspended=[suspended(mode="observe")])
    assert isinstance(op, Open) and op.event == "since-2026-11-29T22:00:00Z/would_suspend"
    assert STATE_LABELS["would_suspend"] in op.labels and "did not reach GitHub" in op.body


def test_healing_is_idempotent_and_respects_an_issue_a_person_closed() -> None:
    healed = issue(events=("since-2026-11-29T22:00:00Z/suspend",))
    assert plan(doc(), [healed], label=LABEL, suspended=[suspended()]) == []
    closed_by_hand = issue(open=False, events=("since-2026-11-29T22:00:00Z/suspend",))
    assert plan(doc(), [closed_by_hand], label=LABEL, suspended=[suspended()]) == []


def test_an_open_issue_whose_endpoint_is_no_longer_suspended_is_closed() -> None:
    ops = plan(doc(), [issue()], label=LABEL, suspended=[])
    assert [type(op) for op in ops] == [IssueComment, Close] and ops[0].event == "r-2/not_suspended"  # type: ignore[union-attr]
    assert plan(doc(), [issue(events=("r-1/suspend", "r-2/not_suspended"), open=False)], label=LABEL,
                suspended=[]) == []


def test_a_closed_suspension_tells_the_decision_that_ended_it_once_and_closes_even_if_that_was_written() -> None:
    lifted = {(MODEL, TAG): render.IssueEvent(model=MODEL, provider=TAG, action="lift", reason="fixed",
                                              round_id="2026-11-29T23:00:00Z", by="alice")}
    comment, close = plan(doc(), [issue()], label=LABEL, suspended=[], endings=lifted)
    assert isinstance(comment, IssueComment) and comment.event == "2026-11-29T23:00:00Z/lift"
    said = comment.body.splitlines()[1]
    assert said.startswith("🔓 **lifted by hand** by alice at 2026") and said.endswith(": fixed.")
    cut_short = issue(events=("r-1/suspend", "2026-11-29T23:00:00Z/lift"))
    assert plan(doc(), [cut_short], label=LABEL, suspended=[], endings=lifted) == [close]


def test_an_issue_this_rounds_decisions_touched_is_left_to_them() -> None:
    ops = plan(doc(decision("floor_held")), [issue()], label=LABEL, suspended=[])
    assert [type(op) for op in ops] == [IssueComment]


def test_without_the_state_nothing_is_healed() -> None:
    assert plan(doc(), [issue()], label=LABEL) == []
