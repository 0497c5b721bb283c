"""Walking a people's YAML file as nodes, so that every error names its line (silences, maintenance).

The exclusion files have their own walk (core/layer_files.py, shaped by their model -> entries
layout, and shipped with the backend's library); the list-of-entries files share this one, and
both parse with core/layer_files.py's compose_yaml.
"""

from __future__ import annotations

import json
from typing import NoReturn

import yaml

from core.layer_files import compose_yaml
from core.store import StoreError

NULL_TAG = "tag:yaml.org,2002:null"
FIX = "Fix the entry (the file's header shows the format) or revert it with git. Nothing was written."


def compose(text: str, source: str) -> yaml.Node | None:
    """The file's node tree; StoreError (with the line) when it is not YAML (the exclusion files' reader)."""
    return compose_yaml(text, source)


def entry_nodes(root: yaml.Node | None, source: str, what: str) -> list[yaml.Node]:
    """The items of a top-level list (none for an empty file)."""
    if root is None or (isinstance(root, yaml.ScalarNode) and root.tag == NULL_TAG):
        return []
    if not isinstance(root, yaml.SequenceNode):
        fail(source, root, f"the top level must be a list of entries (- {what}: ...)")
    return list(root.value)


def scalar_fields(source: str, node: yaml.Node, known: list[str], what: str) -> dict[str, str]:
    """An entry's keys and single values; an unknown, doubled or non-scalar key fails on its own line."""
    if not isinstance(node, yaml.MappingNode):
        fail(source, node, f"each entry must be a mapping ({what})")
    fields: dict[str, str] = {}
    for key, value in node.value:
        name = str(key.value if isinstance(key, yaml.ScalarNode) else None)
        if name not in known:
            fail(source, key, f"{name}: unknown key (known here: {', '.join(sorted(known))})")
        if name in fields:  # YAML would silently keep the last one
            fail(source, key, f"field {name} is given twice in one entry")
        if not isinstance(value, yaml.ScalarNode) or value.tag == NULL_TAG:
            fail(source, value, f"{name}: expected a single value")
        fields[name] = value.value
    return fields


def quoted(value: str) -> str:
    """A YAML double-quoted scalar (a JSON string is one; ASCII escapes keep odd Unicode harmless)."""
    return json.dumps(value, ensure_ascii=True)


def fail(source: str, node: yaml.Node, problem_text: str) -> NoReturn:
    raise problem(source, node, problem_text)


def problem(source: str, node: yaml.Node, problem_text: str) -> StoreError:
    return StoreError(f"{source}: line {node.start_mark.line + 1}: {problem_text}. {FIX}")
