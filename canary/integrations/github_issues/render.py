"""The text of incident issues and their comments (pure, upstream text escaped).

Untrusted text goes through `core.untrusted.markdown()` in prose, and excerpts into a code fence
longer than any backtick run they hold; titles keep only characters GitHub renders as plain text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from canary.integrations.github_issues.markers import comment_marker, issue_marker
from core.times import fmt_time
from core.untrusted import clean, markdown
from judge.suspension.decisions import Action, Decision, Evidence, action_named

MAX_EVIDENCE = 8
MAX_EXCERPTS = 3
EXCERPT_CHARS = 300
_TITLE_DROP = re.compile(r"[`\\<>\[\]@#*_|~!$]")
_SAFE_URL = re.compile(r"^https?://[^\s()<>\[\]\"'`\\]+$")

Excerpt = tuple[str, str]   # (contract, reply text)


@dataclass(frozen=True, slots=True, kw_only=True)
class IssueEvent:
    """What an issue or a comment tells: a decision of the judge, or one the plan found in the
    state (a suspension whose round never reached GitHub, an endpoint no longer suspended)."""

    model: str
    provider: str
    action: str                  # a decision's action, or "not_suspended"
    reason: str
    until: str | None = None
    rung: int | None = None
    evidence: tuple[Evidence, ...] = ()
    round_id: str | None = None  # decided elsewhere (found in the audit log): its round, or a lift's time
    by: str | None = None        # who decided it by hand (a lift)

    @classmethod
    def of(cls, d: Decision) -> IssueEvent:
        return cls(model=d.model, provider=d.provider, action=d.action.value, reason=d.reason,
                   until=fmt_time(d.until), rung=d.rung, evidence=d.evidence)


def title(d: IssueEvent) -> str:
    action = action_named(d.action)
    text = (f"{action.symbol} {d.provider} {action.label} ({d.model})" if action is not None
            else f"{d.provider} {d.action} ({d.model})")
    return _TITLE_DROP.sub("", clean(text, 200)).strip()


def round_link(round_id: str, url: str | None) -> str:
    """`round R`, linked to the workflow run when the URL is a plain http(s) URL (ours, from env)."""
    text = f"round {markdown(round_id, 80)}"
    return f"[{text}]({url})" if url and _SAFE_URL.match(url) else text


def issue_body(d: IssueEvent, *, event: str, round_id: str, mode: str, run_url: str | None,
               excerpts: Sequence[Excerpt] = ()) -> str:
    model, provider, action = d.model, d.provider, d.action
    what = "suspended" if action == Action.SUSPEND else "would have suspended (observe mode: routing unchanged)"
    lines = [
        issue_marker(model, provider, event),
        f"**Endpoint** {markdown(provider, 120)} · **model** {markdown(model, 120)} · {markdown(mode, 20)} mode",
        "",
        f"In {round_link(round_id, run_url)} canary {what} this endpoint: {markdown(d.reason)}"
        f"{_until(d)}.",
        "",
        *_evidence(d),
        *_excerpts(excerpts),
        "",
        "_Opened by canary. Later decisions about this endpoint are added as comments; the issue "
        "closes when the endpoint is restored, its suspension expires or is lifted._",
    ]
    return "\n".join(lines).strip() + "\n"


def comment_body(d: IssueEvent, *, event: str, round_id: str, run_url: str | None,
                 excerpts: Sequence[Excerpt] = ()) -> str:
    model, provider, action = d.model, d.provider, d.action
    named = action_named(action)
    label = markdown(named.label if named is not None else action.replace("_", " "), 40)
    where = (f"by {markdown(d.by, 80)} at {markdown(round_id, 40)}" if d.by is not None
             else f"in {round_link(round_id, run_url)}")
    lines = [
        comment_marker(model, provider, event),
        f"{named.symbol if named is not None else '•'} **{label}** {where}: {markdown(d.reason)}{_until(d)}.",
        "",
        *_evidence(d),
        *_excerpts(excerpts),
    ]
    return "\n".join(lines).strip() + "\n"


def _until(d: IssueEvent) -> str:
    parts = []
    if d.rung is not None:
        parts.append(f"rung {markdown(d.rung, 8)}")
    if d.until:
        parts.append(f"until {markdown(d.until, 40)}")
    return f" ({', '.join(parts)})" if parts else ""


def _evidence(d: IssueEvent) -> list[str]:
    evidence = d.evidence
    if not evidence:
        return []
    rows = ["| contract | outcome | reason |", "|---|---|---|"]
    for e in evidence[:MAX_EVIDENCE]:
        rows.append(f"| {markdown(e.contract, 40)} | {markdown(e.outcome, 40)} | {markdown(e.reason, 300)} |")
    if len(evidence) > MAX_EVIDENCE:
        rows.append(f"| … | | {len(evidence) - MAX_EVIDENCE} more in decisions.json |")
    return [*rows, ""]


def _excerpts(excerpts: Sequence[Excerpt]) -> list[str]:
    out = []
    for contract, text in list(excerpts)[:MAX_EXCERPTS]:
        body = clean(text, EXCERPT_CHARS)
        fence = "`" * max(3, _longest_backtick_run(body) + 1)
        out += [f"Reply excerpt ({markdown(contract, 40)}):", "", fence + "text", body, fence, ""]
    return out


def _longest_backtick_run(text: str) -> int:
    return max((len(run) for run in re.findall(r"`+", text)), default=0)
