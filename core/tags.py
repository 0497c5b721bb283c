"""Validation of identifiers that come from the upstream (provider tags, model ids, round ids).

Tags are chosen by OpenRouter and hosts, not by us: before one reaches a file, a commit message,
Markdown or a shell it must match a conservative pattern, and never hold `..` (so it can never climb
out of a directory).
"""

from __future__ import annotations

import re
from typing import TypeGuard

TAG_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$")
# OpenRouter model ids: `author/slug` (the slug may hold more `/`-separated segments and a
# `:variant`), each segment of letters, digits and `._:-`; bounded like a tag.
MODEL_PATTERN = re.compile(r"^(?=.{1,128}$)[A-Za-z0-9][A-Za-z0-9._:-]*(?:/[A-Za-z0-9][A-Za-z0-9._:-]*)+$")
# Older versions merged rounds, joining their ids with "+", so an id may be longer than a tag. `\Z`, not
# `$`: msgspec applies a declared pattern with re.search, where `$` also matches before a final newline.
ROUND_ID_PATTERN = re.compile(r"^(?!.*\.\.)[A-Za-z0-9][A-Za-z0-9._:+-]{0,1023}\Z")
# A provider's display name, as replies and discovery give it ("DeepInfra", "Google AI Studio"): words, not text.
PROVIDER_NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._()&+-]{0,63}\Z")


def is_valid_tag(value: object) -> TypeGuard[str]:
    """True when `value` is a provider tag or model id that is safe everywhere canary writes it."""
    return isinstance(value, str) and bool(TAG_PATTERN.fullmatch(value)) and ".." not in value


def is_valid_model_id(value: object) -> TypeGuard[str]:
    """True when `value` is an OpenRouter model id (author/slug) safe in a URL path, a file, Markdown and output."""
    return isinstance(value, str) and bool(MODEL_PATTERN.fullmatch(value)) and ".." not in value


def is_valid_round_id(value: object) -> TypeGuard[str]:
    """True when `value` is a round id safe in a commit message and the state file."""
    return isinstance(value, str) and bool(ROUND_ID_PATTERN.match(value))


def is_provider_name(value: object) -> TypeGuard[str]:
    """True when `value` is a provider's display name (PROVIDER_NAME_PATTERN)."""
    return isinstance(value, str) and bool(PROVIDER_NAME_PATTERN.match(value))


def describe_invalid_tag(value: object) -> str:
    """A one-line, printable explanation of why a tag was refused (the tag itself escaped)."""
    shown = ascii(value)[:80]
    return (f"{shown} is not an acceptable tag: use letters, digits and ._:/- only, "
            "start with a letter or digit, at most 128 characters, no '..'")
