"""README badges: one small SVG per model, "canary | 2 suspended", coloured by its worst endpoint (pure).

A fixed template in the style of shields.io's flat badges; the only variable parts are the two
texts (escaped as XML) and widths computed from them, so nothing in a badge is drawn by hand
beyond two rectangles. Widths are estimated from character classes of Verdana 11 px (the font
the template names); a badge never depends on what fonts the viewer has.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from xml.sax.saxutils import escape

from canary.history.tiers import HealthTier
from canary.outputs.site.endpoints import RoutingState

RED, ORANGE, YELLOW, GREEN, GREY = "#cb2431", "#e36209", "#b08800", "#2c974b", "#6a737d"
LABEL = "canary"

# (status, colour), worst first: the badge names the worst status present and how many. A status is
# an endpoint's routing state, or its health tier when it is active (endpoints.display_status).
SEVERITY = ((RoutingState.SUSPENDED, RED), (RoutingState.WOULD_SUSPEND, ORANGE), (HealthTier.FAILING, ORANGE),
            (RoutingState.FLOOR_HELD, ORANGE), (HealthTier.DEGRADED, YELLOW), (RoutingState.EXCLUDED, GREY),
            (HealthTier.UNKNOWN, GREY))
WORDS: dict[str, str] = {RoutingState.WOULD_SUSPEND: "would suspend", RoutingState.FLOOR_HELD: "floor held"}


def badge_message(statuses: Iterable[str]) -> tuple[str, str]:
    """(message, colour) for a model whose endpoints have these display statuses."""
    counts: dict[str, int] = {}
    total = 0
    for s in statuses:
        counts[s] = counts.get(s, 0) + 1
        total += 1
    if total == 0:
        return "no data", GREY
    for status, colour in SEVERITY:
        if counts.get(status):
            if status == RoutingState.EXCLUDED and counts.get(HealthTier.HEALTHY):
                break  # people's exclusions are known and deliberate: report health instead
            return f"{counts[status]} {WORDS.get(status, status)}", colour
    return f"{counts.get(HealthTier.HEALTHY, 0)}/{total} healthy", GREEN


def badge_svg(message: str, colour: str, label: str = LABEL) -> str:
    """The SVG of one badge."""
    lw, mw = _width(label) + 10, _width(message) + 10
    total = lw + mw
    label_x, message_x = lw * 5, (lw + mw / 2) * 10
    title = escape(f"{label}: {message}", {'"': "&quot;"})   # also an attribute value
    label_t, message_t, fill = escape(label), escape(message), escape(_colour(colour), {'"': "&quot;"})
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{total}" height="20" role="img" aria-label="{title}">'
        f"<title>{title}</title>"
        f'<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/>'
        f'<stop offset="1" stop-opacity=".1"/></linearGradient>'
        f'<clipPath id="r"><rect width="{total}" height="20" rx="3" fill="#fff"/></clipPath>'
        f'<g clip-path="url(#r)"><rect width="{lw}" height="20" fill="#555"/>'
        f'<rect x="{lw}" width="{mw}" height="20" fill="{fill}"/>'
        f'<rect width="{total}" height="20" fill="url(#s)"/></g>'
        f'<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" '
        f'text-rendering="geometricPrecision" font-size="110">'
        f'<text x="{label_x:.0f}" y="140" transform="scale(.1)" fill="#010101" fill-opacity=".3">{label_t}</text>'
        f'<text x="{label_x:.0f}" y="130" transform="scale(.1)">{label_t}</text>'
        f'<text x="{message_x:.0f}" y="140" transform="scale(.1)" fill="#010101" fill-opacity=".3">{message_t}</text>'
        f'<text x="{message_x:.0f}" y="130" transform="scale(.1)">{message_t}</text></g></svg>\n'
    )


def badge_paths(models: Iterable[str]) -> Mapping[str, str]:
    """model -> its badge's path in the site, mirroring the model id (`badges/deepseek/deepseek-chat.svg`).

    Model ids are validated tags (judge/tags.py: letters, digits, `._:/-`, no `..`); `:` becomes
    `~` (`:free` variants) and an empty segment `~`. Two ids that would still share a path get a
    hash suffix, so no badge overwrites another."""
    out: dict[str, str] = {}
    taken: set[str] = set()
    for model in sorted(set(models)):
        path = "badges/" + "/".join((seg or "~").replace(":", "~") for seg in model.split("/")) + ".svg"
        if path in taken:
            path = path[:-4] + "~" + hashlib.sha256(model.encode()).hexdigest()[:8] + ".svg"
        taken.add(path)
        out[model] = path
    return out


def _width(text: str) -> int:
    """Approximate width in px of `text` in Verdana 11 px."""
    wide, narrow = set("mwMW@%"), set("ijlrtfI.,:;!|' ")
    return int(sum(10 if c in wide else 4 if c in narrow else 7 for c in text))


def _colour(value: str) -> str:
    is_hex = value.startswith("#") and len(value) == 7 and all(c in "0123456789abcdefABCDEF" for c in value[1:])
    return value if is_hex else GREY
