"""The commit message of a round: built from validated tags only, never from the file's free text."""

from __future__ import annotations

import pytest
from summary_data import record_of

from canary.state.commit_back import commit_message
from judge.suspension.decisions import DecisionsError

HOSTILE = ['a/b"; rm -rf ~; echo "', "x\ny: injected", "$(reboot)", "`id`", "a|b", "tag\x1b[31m"]


@pytest.mark.parametrize("tag", HOSTILE, ids=lambda t: ascii(t)[:10])
def test_commit_messages_never_contain_raw_hostile_tags(tag: str) -> None:
    # The record holds whatever strings its file held: ids and tags are checked again here.
    doc = record_of({"round_id": "r\nSigned-off-by: evil", "mode": "enforce", "decisions": [
        {"model": tag, "provider": tag, "action": "suspend", "rule": "failed_streak", "reason": "`id`", "rung": 1}]})
    message = commit_message(doc)
    assert tag not in message and "evil" not in message
    assert all(ch not in message for ch in '`$;|"\x1b')
    assert message.splitlines()[0] == "canary: round <invalid round id> (enforce): 1 decision(s)"
    assert message.splitlines()[2] == "- suspend <invalid tag> (<invalid tag>) rung 1"


def test_a_hostile_mode_never_reaches_a_commit_message() -> None:
    with pytest.raises(DecisionsError, match="mode: expected one of observe, enforce"):  # the mode is typed
        record_of({"mode": "enforce; ls", "decisions": []})


@pytest.mark.parametrize("field", [{"action": "suspend; ls"}, {"rung": "1;"}, {"until": "soon`x`"}],
                         ids=["action", "rung", "until"])
def test_a_hostile_action_rung_or_time_never_reaches_a_commit_message(field: dict[str, str]) -> None:
    with pytest.raises(DecisionsError, match=next(iter(field))):
        record_of({"decisions": [{"model": "m/x", "provider": "a/fp8", "action": "suspend",
                                  "rule": "failed_streak", "reason": "r", **field}]})
