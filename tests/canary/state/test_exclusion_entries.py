"""An exclusion file's entries read through their declaration: the line, the model and the key named."""

from __future__ import annotations

import pytest

from core.layer_files import parse_exclusions
from core.layers import BUILTIN, INCIDENT
from core.store import StoreError

MODEL = "deepseek/deepseek-chat-v3-0324"


@pytest.mark.parametrize(("layer", "entry", "message"), [
    (BUILTIN, '    reasn: "typo"\n',
     f"builtin.yaml: line 3: {MODEL}: reasn: unknown key (known here: provider, reason, since)"),
    (BUILTIN, '    reason: "r"\n    expires: "2026-12-06T00:00:00Z"\n',
     f"builtin.yaml: line 4: {MODEL}: expires: unknown key (known here: provider, reason, since)"),
    (INCIDENT, '    reason: "r"\n', f"builtin.yaml: line 2: {MODEL}: added_at: required key is missing"),
], ids=["a-typo", "builtin-entries-never-expire", "an-incident-without-its-time"])
def test_a_key_the_entry_does_not_declare_or_lacks_is_refused_with_its_line(layer: str, entry: str,
                                                                             message: str) -> None:
    text = f'"{MODEL}":\n  - provider: "x/fp8"\n{entry}'
    with pytest.raises(StoreError) as refused:
        parse_exclusions(text, layer, "builtin.yaml")
    assert str(refused.value).startswith(message)
    assert str(refused.value).endswith("Nothing was written.")
