"""Model ids in canary.yaml are checked as discovery checks them: HTML or a newline never passes.

A newline split `canary models`' output (which the workflow feeds to `--expect-models`) and HTML
passed `canary validate`; both now fail naming the offending id, escaped.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from canary.cli.main import main

HOSTILE_IDS = {
    "newline": "deepseek/deepseek-chat\nopenai/gpt-4o",
    "html": "deepseek/<img src=x onerror=alert(1)>",
    "markdown-link": "[x](https://evil.example)/slug",
    "space": "deepseek/deepseek chat",
    "dot-dot": "deepseek/../../etc",
    "empty-segment": "deepseek//chat",
    "too-long": "a/" + "b" * 200,
}


@pytest.mark.parametrize("name", sorted(HOSTILE_IDS))
@pytest.mark.parametrize("command", ["validate", "models"])
def test_a_hostile_model_id_fails_validate_and_models_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                 name: str, command: str) -> None:
    config = tmp_path / "canary.yaml"
    model = HOSTILE_IDS[name]
    config.write_text(f"models: [deepseek/deepseek-chat-v3-0324, {model!r}]\n".replace("'", '"'), encoding="utf-8")

    code = main(["--config", str(config), command])

    out, err = capsys.readouterr()
    assert code == (1 if command == "validate" else 2)  # validate's "invalid", models' "refused"
    assert "models" in out + err and ascii(model)[:40] in out + err and "Traceback" not in err
    assert model not in out


def test_real_model_ids_still_pass(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "canary.yaml"
    config.write_text("models: [deepseek/deepseek-chat-v3-0324, meta-llama/llama-3.1-8b-instruct:free, "
                      "openai/gpt-4o-2024-08-06]\n", encoding="utf-8")
    assert main(["--config", str(config), "models"]) == 0
    assert capsys.readouterr().out.count("\n") >= 1
