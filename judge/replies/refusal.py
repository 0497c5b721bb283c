"""Silent filters and refusals: a content_filter finish, empty output, or an out-of-character refusal.

`assess` is the refusal contract's verdict on the probe's reply; `find_refusal` asks only whether
any completed roleplay reply is the host declining out of character (docs/contracts.md, refusals).
"""

from __future__ import annotations

from enum import StrEnum

from judge.replies.refusal_evidence import REFUSAL_THRESHOLD, RefusalFinding, weigh
from judge.replies.verdict import Verdict, failed, passed

__all__ = ["REFUSAL_THRESHOLD", "RefusalCode", "RefusalFinding", "assess", "find_refusal", "weigh"]


class RefusalCode(StrEnum):
    """The codes of the refusal judge (judge/replies/verdict.py)."""

    CONTENT_FILTER = "content_filter"
    EMPTY_REPLY = "empty_reply"
    REFUSAL_PATTERN = "refusal_pattern"


def find_refusal(text: str) -> RefusalFinding | None:
    """The evidence that a completed roleplay reply is an out-of-character refusal, or None."""
    finding = weigh(text)
    return finding if finding.refusal else None


def assess(text: str, finish_reason: str | None = None) -> Verdict:
    """Judge whether the host filtered or refused a supported roleplay continuation."""
    if finish_reason == "content_filter":
        return failed(RefusalCode.CONTENT_FILTER,
            "refusal: the host stopped the reply with finish_reason 'content_filter'")
    if not text.strip():
        truncated = f" (finish_reason {finish_reason!r})" if finish_reason else ""
        return failed(RefusalCode.EMPTY_REPLY, f"refusal: empty reply{truncated}")
    finding = weigh(text)
    if finding.refusal:
        return failed(RefusalCode.REFUSAL_PATTERN,
                      f"refusal: the reply declines out of character ({finding.language}, score {finding.score:g} "
                      f">= {REFUSAL_THRESHOLD:g}: {'; '.join(finding.signals)}): {finding.excerpt!r}")
    if finding.signals and finding.signals[0].startswith("opens in character"):
        return passed(f"refusal: the reply {finding.signals[0]}")
    if finding.signals:
        return passed(f"refusal: no refusal (score {finding.score:g} < {REFUSAL_THRESHOLD:g}: "
                      f"{'; '.join(finding.signals)})")
    return passed("refusal: no refusal, filter or empty output")
