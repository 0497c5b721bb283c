"""The hidden markers by which canary finds its own incident issues and comments again.

An issue body carries `<!-- canary-incident key=K model=M endpoint=E event=V -->`, a comment
`<!-- canary-incident key=K event=V -->`: K a short hash of model and endpoint (one searchable word),
V the event `<round id>/<action>`. Values are percent-encoded but `[A-Za-z0-9._~/:@+-]`, so none can
close the HTML comment. The field keeps the name `endpoint=`: issues filed before the rename carry it.
"""

from __future__ import annotations

import hashlib
import re
from urllib.parse import quote, unquote

NAME = "canary-incident"
_SAFE = "/:@+"
_MARKER = re.compile(r"<!-- canary-incident ((?:[a-z]+=[A-Za-z0-9._~/:@+%-]*\s)+)-->")
_FIELD = re.compile(r"([a-z]+)=(\S*)")


def incident_key(model: str, provider: str) -> str:
    """A stable 20-hex-digit name for one model x endpoint (searchable, reveals nothing new)."""
    return hashlib.sha256(f"{model}\n{provider}".encode()).hexdigest()[:20]


def event_id(round_id: str, action: str) -> str:
    return f"{round_id}/{action}"


def _encode(value: str) -> str:
    return quote(value, safe=_SAFE)


def issue_marker(model: str, provider: str, event: str) -> str:
    return (f"<!-- {NAME} key={incident_key(model, provider)} model={_encode(model)} "
            f"endpoint={_encode(provider)} event={_encode(event)} -->")


def comment_marker(model: str, provider: str, event: str) -> str:
    return f"<!-- {NAME} key={incident_key(model, provider)} event={_encode(event)} -->"


def parse(text: str | None) -> list[dict[str, str]]:
    """Every well-formed marker in a body, decoded; an issue marker's key must match its fields."""
    out = []
    for match in _MARKER.finditer(text or ""):
        fields = {k: unquote(v) for k, v in _FIELD.findall(match.group(1))}
        if "key" not in fields or "event" not in fields:
            continue
        if "model" in fields and fields["key"] != incident_key(fields["model"], fields.get("endpoint", "")):
            continue  # edited by hand or copied from elsewhere: not trusted as ours
        out.append(fields)
    return out
