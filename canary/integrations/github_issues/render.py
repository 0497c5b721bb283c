"""The text of incident issues and their comments (pure, upstream text escaped).

Reasons, evidence and reply excerpts are untrusted: in prose they go through
`core.untrusted.markdown()` (one line, every Markdown/HTML metacharacter escaped, so no
link, image, mention, table break or raw HTML), and excerpts go in a code fence longer than
any backtick run they contain, so they cannot close it. Titles keep only characters that
GitHub renders as plain text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from canary.integrations.github_issues.markers import comment_marker, issue_marker
from core.untrusted import clean, markdown

MAX_EVIDENCE = 8
MAX_EXCERPTS = 3
EXCERPT_CHARS = 300
VERBS = {"suspend": "suspended", "would_suspend": "would be suspended (observe mode)"}
SYMBOLS = {"suspend": "⛔", "would_suspend": "👀", "floor_held": "⚠️", "restore": "✅", "expired": "⌛",
           "probe_weak": "🧪", "lift": "🔓", "incident_add": "🚧", "incident_remove": "🧹"}
_TITLE_DROP = re.compile(r"[`\\<>\[\]@#*_|~!$]")
_SAFE_URL = re.compile(r"^https?://[^\s()<>\[\]\"'`\\]+$")

Excerpt = tuple[str, str]   # (contract, reply text)


def title(d: Mapping[str, Any]) -> str:
    verb = VERBS.get(str(d.get("action")), str(d.get("action")))
    text = f"{SYMBOLS.get(str(d.get('action')), '')} {d.get('provider')} {verb} ({d.get('model')})"
    return _TITLE_DROP.sub("", clean(text, 200)).strip()


def round_link(round_id: str, url: str | None) -> str:
    """`round R`, linked to the workflow run when the URL is a plain http(s) URL (ours, from env)."""
    text = f"round {markdown(round_id, 80)}"
    return f"[{text}]({url})" if url and _SAFE_URL.match(url) else text


def issue_body(d: Mapping[str, Any], *, event: str, round_id: str, mode: str, run_url: str | None,
               excerpts: Sequence[Excerpt] = ()) -> str:
    model, endpoint, action = str(d.get("model")), str(d.get("provider")), str(d.get("action"))
    what = "suspended" if action == "suspend" else "would have suspended (observe mode: routing unchanged)"
    lines = [
        issue_marker(model, endpoint, event),
        f"**Endpoint** {markdown(endpoint, 120)} · **model** {markdown(model, 120)} · {markdown(mode, 20)} mode",
        "",
        f"In {round_link(round_id, run_url)} canary {what} this endpoint: {markdown(d.get('reason'))}"
        f"{_until(d)}.",
        "",
        *_evidence(d),
        *_excerpts(excerpts),
        "",
        "_Opened by canary. Later decisions about this endpoint are added as comments; the issue "
        "closes when the endpoint is restored, its suspension expires or is lifted._",
    ]
    return "\n".join(lines).strip() + "\n"


def comment_body(d: Mapping[str, Any], *, event: str, round_id: str, run_url: str | None,
                 excerpts: Sequence[Excerpt] = ()) -> str:
    model, endpoint, action = str(d.get("model")), str(d.get("provider")), str(d.get("action"))
    label = markdown(action.replace("_", " "), 40)
    lines = [
        comment_marker(model, endpoint, event),
        f"{SYMBOLS.get(action, '•')} **{label}** in {round_link(round_id, run_url)}: "
        f"{markdown(d.get('reason'))}{_until(d)}.",
        "",
        *_evidence(d),
        *_excerpts(excerpts),
    ]
    return "\n".join(lines).strip() + "\n"


def _until(d: Mapping[str, Any]) -> str:
    parts = []
    if d.get("rung") is not None:
        parts.append(f"rung {markdown(d['rung'], 8)}")
    if d.get("until"):
        parts.append(f"until {markdown(d['until'], 40)}")
    return f" ({', '.join(parts)})" if parts else ""


def _evidence(d: Mapping[str, Any]) -> list[str]:
    evidence = [e for e in d.get("evidence") or [] if isinstance(e, Mapping)]
    if not evidence:
        return []
    rows = ["| contract | outcome | reason |", "|---|---|---|"]
    for e in evidence[:MAX_EVIDENCE]:
        rows.append(f"| {markdown(e.get('contract'), 40)} | {markdown(e.get('outcome'), 40)} | "
                    f"{markdown(e.get('reason'), 300)} |")
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
