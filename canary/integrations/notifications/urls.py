"""Where notifications go: the Apprise URL list, the deprecated webhook alias, and their secrets.

Every notification URL is a secret (Apprise URLs carry tokens in the URL), so nothing here returns
one for display: `Target.label` names a URL by position and scheme, and `Scrubber` removes every
part of every configured URL from text a library or a server produced. The deprecated
CANARY_WEBHOOK_URL goes to its service's Apprise plugin when Apprise recognises it, else gets the old
`{"text": ...}` POST through Apprise's generic JSON plugin.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import parse_qsl, quote, unquote, urlsplit

from core.key_mask import mask_for

NOTIFY_URLS_ENV = "CANARY_NOTIFY_URLS"
WEBHOOK_ENV = "CANARY_WEBHOOK_URL"   # deprecated alias: one Slack-compatible webhook URL
REDACTED = "[redacted]"   # plain in a log, and literal text in Markdown

_SPLIT = re.compile(r"\s+|,\s*(?=[A-Za-z][A-Za-z0-9+.-]*://)")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]{0,31})://")
# Secrets are matched as whole fragments of the URL (path segments, host, query values).
# From error text every fragment of 6 characters or more goes (a shorter one would erase
# ordinary words, and real tokens are longer); from the message itself only token-length
# fragments (TOKEN_FRAGMENT), so an ntfy topic or a path like /canary does not blank out the
# word "canary". User names and passwords go whatever their length (from 3 characters).
MIN_FRAGMENT = 6
TOKEN_FRAGMENT = 16
_MIN_CREDENTIAL = 3
_DELIMITERS = re.compile(r"[/:@?&=#,;\s]+")


@dataclass(frozen=True, slots=True)
class Target:
    """One place to notify: the Apprise URL, its position in the list, and how to send to it."""

    url: str
    position: int            # 1-based, in the order of CANARY_NOTIFY_URLS then the webhook alias
    source: str              # the environment variable it came from
    legacy: bool = False     # the old webhook: the title goes into the one `text` field

    @property
    def label(self) -> str:
        """How messages name it: never the URL, only where it came from and its scheme."""
        return f"{self.source} #{self.position} ({scheme_of(self.url) or 'no scheme'})"


def split_urls(text: str) -> list[str]:
    """The URLs of a whitespace/comma separated list, in order, empty entries dropped."""
    return [part.strip() for part in _SPLIT.split(text or "") if part and part.strip()]


def scheme_of(url: str) -> str | None:
    match = _SCHEME.match(url)
    return match.group(1).lower() if match else None


def targets_from_env(env: Mapping[str, str], native: Callable[[str], bool]) -> list[Target]:
    """Every configured target: CANARY_NOTIFY_URLS first, then the deprecated CANARY_WEBHOOK_URL. `native`
    tells whether Apprise recognises a URL as it is (a parameter, so this module does not import Apprise)."""
    targets = [Target(url, i + 1, NOTIFY_URLS_ENV) for i, url in enumerate(split_urls(env.get(NOTIFY_URLS_ENV, "")))]
    webhook = (env.get(WEBHOOK_ENV) or "").strip()
    if webhook:
        position = len(targets) + 1
        if native(webhook) or scheme_of(webhook) not in ("http", "https"):
            targets.append(Target(webhook, position, WEBHOOK_ENV))
        else:
            targets.append(Target(legacy_json_url(webhook), position, WEBHOOK_ENV, legacy=True))
    return targets


def legacy_json_url(url: str) -> str:
    """An http(s) webhook as an Apprise json(s):// URL that POSTs exactly `{"text": body}`: `:message=text`
    renames the message key, an empty `:key` drops one, the webhook's own query passes with a `-` prefix."""
    parts = urlsplit(url)
    scheme = "jsons" if parts.scheme.lower() == "https" else "json"
    query = [(f"-{k}", v) for k, v in parse_qsl(parts.query, keep_blank_values=True)]
    rewrites = [(":message", "text"), (":version", ""), (":title", ""), (":type", ""), (":attachments", "")]
    encoded = "&".join(f"{quote(k, safe=':-')}={quote(v, safe='')}" if v else quote(k, safe=":-")
                       for k, v in query + rewrites)
    return f"{scheme}://{parts.netloc}{parts.path or '/'}?{encoded}"


class Scrubber:
    """Removes every secret-looking part of the configured URLs (and other secrets) from text."""

    def __init__(self, urls: Iterable[str], extra_secrets: Iterable[str] = (), *,
                 min_fragment: int = MIN_FRAGMENT) -> None:
        fragments: set[str] = set()
        for url in urls:
            fragments |= _fragments(url, min_fragment)
        secrets = [s for s in extra_secrets if s and len(s) >= _MIN_CREDENTIAL]
        # Longest first, so a whole URL goes before the pieces it contains.
        self._fragments = sorted(fragments, key=len, reverse=True)
        # A secret (the API key, the GitHub token) goes whole, by any run of 16 of its characters,
        # in any case, hex and base64 (core/key_mask.py): a server's error may quote a piece of it.
        self._masks = [mask_for(s, REDACTED) for s in secrets]

    def __call__(self, text: str) -> str:
        for mask in self._masks:
            text = mask(text)
        for fragment in self._fragments:
            if fragment in text:
                text = text.replace(fragment, REDACTED)
        return text


def _fragments(url: str, min_fragment: int) -> set[str]:
    out = {url, unquote(url)}
    scheme = scheme_of(url)
    rest = url[len(scheme) + 3:] if scheme else url
    try:
        parts = urlsplit(url)
        credentials = [parts.username, parts.password]
        query_values = [v for _, v in parse_qsl(parts.query, keep_blank_values=True)]
    except ValueError:  # an unparseable port or IPv6 literal: fall back to the raw pieces
        credentials, query_values = [], []
    for credential in credentials:
        if credential and len(credential) >= _MIN_CREDENTIAL:
            out |= {credential, unquote(credential), quote(unquote(credential), safe="")}
    for raw in [*_DELIMITERS.split(rest), *_DELIMITERS.split(unquote(rest)), *query_values]:
        if len(raw) >= min_fragment:
            out |= {raw, unquote(raw)}
    return {f for f in out if f}
