"""index.html: the fixed page shell with the data as one inert JSON block (pure); why no upstream
text can escape it: docs/status-page.md (upstream text stays text)."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "base-uri 'none'; form-action 'none'")
_SCRIPT_SAFE = {ord("<"): "\\u003c", ord(">"): "\\u003e", ord("&"): "\\u0026",
                ord("\u2028"): "\\u2028", ord("\u2029"): "\\u2029"}


def script_json(data: Any) -> str:
    """`data` as JSON that is inert inside a <script type="application/json"> block."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False).translate(_SCRIPT_SAFE)


def render_index(data: Any) -> str:
    """The page: the template with its data block filled in."""
    template = resources.files("canary.outputs.site").joinpath("assets/index.html").read_text(encoding="utf-8")
    head, marker, tail = template.partition("@DATA@")
    if not marker:
        raise RuntimeError("canary/outputs/site/assets/index.html has no @DATA@ marker")
    return head.replace("@CSP@", CSP) + script_json(data) + tail


def asset(name: str) -> bytes:
    """One of the page's own static files (assets/)."""
    return resources.files("canary.outputs.site").joinpath(f"assets/{name}").read_bytes()
