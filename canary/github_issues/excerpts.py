"""Reply excerpts for an incident issue, from the round's results.json files (shards).

Read leniently: these files were already validated by the judge, and an excerpt is only
illustration, so anything malformed is skipped rather than refused. The text stays
untrusted: render.py puts it in a code fence.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from canary.github_issues.render import MAX_EXCERPTS, Excerpt

Key = tuple[str, str]


def from_results(docs: Iterable[Any]) -> dict[Key, list[Excerpt]]:
    """(model, endpoint) -> (contract, first reply excerpt) of each failed case, in file order."""
    out: dict[Key, list[Excerpt]] = {}
    for doc in docs:
        cases = doc.get("cases") if isinstance(doc, Mapping) else None
        for case in cases if isinstance(cases, list) else []:
            if not isinstance(case, Mapping) or case.get("outcome") != "fail" or case.get("control"):
                continue
            text = next((a.get("excerpt") for a in case.get("attempts") or []
                         if isinstance(a, Mapping) and isinstance(a.get("excerpt"), str) and a.get("excerpt")), None)
            key = (str(case.get("model")), str(case.get("provider")))
            if text and len(out.setdefault(key, [])) < MAX_EXCERPTS:
                out[key].append((str(case.get("contract")), text))
    return out
