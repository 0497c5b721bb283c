"""Review: a frozen language case must not let a host escape the two-round rule by rotating away.

SPEC: "The same language is repeated in the next round, so that a host cannot escape the
consecutive-round rule just because the rotation moved." The consecutive-round rule skips frozen
rounds, so a language case that says nothing (transport error, inconclusive) while the host has
a pending failed streak must keep the language too: otherwise the next *counted* round probes
another language, in which the defect may not show, and the streak resets.
"""

from __future__ import annotations

import pytest
from rules_factories import MODEL, PROVIDERS, Timeline, actions

from judge.suspension.decisions import Action

P = PROVIDERS[0]


@pytest.mark.parametrize("frozen", ["transport_error", "inconclusive"])
def test_a_frozen_language_case_keeps_the_language_while_a_failed_streak_is_pending(frozen: str) -> None:
    t = Timeline()
    t.round({P: {"language": "fail"}}, languages={P: "ko"})
    assert t.state.provider(MODEL, P).next_language == "ko"
    t.round({P: {"language": frozen}}, languages={P: "ko"})
    assert t.state.provider(MODEL, P).failed_streak == 1
    assert t.state.provider(MODEL, P).next_language == "ko"
    # ...so the next counted round probes Korean again and the second failure suspends.
    assert actions(t.round({P: {"language": "fail"}}, languages={P: "ko"}), Action.SUSPEND)


def test_without_a_pending_streak_a_frozen_language_case_still_advances() -> None:
    t = Timeline()
    t.round({P: {"language": "transport_error"}}, languages={P: "ko"})
    assert t.state.provider(MODEL, P).next_language == "ja"
