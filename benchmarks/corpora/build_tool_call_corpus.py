"""Rebuild the real streamed tool-call fixture from recorded OpenRouter traffic (committed, small).

    .venv/bin/python benchmarks/corpora/build_tool_call_corpus.py [--mirror /work/.mirror] [--out FILE]

Source: charmbracelet/fantasy (Apache-2.0), `providertests/testdata/TestOpenRouterCommon/<family>/
{tool,multi_tool}_streaming.yaml` at the commit below: go-vcr cassettes of real OpenRouter
streams of six model families (Kimi, GLM, OpenAI, Anthropic, Gemini, Grok) each served by a real
host, one or two function tools per request. Per stream the fixture keeps what the judge needs:
the request's tools (name, parameters) and, per data event, the delta's `content`, `reasoning`,
`tool_calls` and the finish reasons (ids, timestamps and everything else dropped). Written to
tests/judge/data/tools/openrouter_tool_streams.json, which tests/judge/replies/test_tools_judge.py
replays through the client's stream state and the judge: every real stream must pass.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
REPO = "charmbracelet+fantasy"
COMMIT = "f6d4d1e"  # v0.41.2
FOLDER = "providertests/testdata/TestOpenRouterCommon"
FAMILIES = ("kimi", "glm", "openai", "anthropic", "gemini", "grok")
OUT = ROOT / "tests" / "judge" / "data" / "tools" / "openrouter_tool_streams.json"
KEPT_DELTA = ("content", "reasoning", "tool_calls")


def show(git_dir: Path, path: str) -> str:
    return subprocess.run(["git", "--git-dir", str(git_dir), "show", f"{COMMIT}:{path}"], check=True,
                          capture_output=True, text=True).stdout


def events(body: str) -> list[dict[str, Any]]:
    out = []
    for line in body.splitlines():
        if not line.startswith("data: ") or line.strip() == "data: [DONE]":
            continue
        chunk = json.loads(line[len("data: "):])
        for choice in chunk.get("choices") or []:
            delta = {k: v for k, v in (choice.get("delta") or {}).items() if k in KEPT_DELTA and v is not None}
            kept = {"delta": delta, "finish_reason": choice.get("finish_reason"),
                    "native_finish_reason": choice.get("native_finish_reason")}
            out.append({"choices": [{"index": choice.get("index", 0), **kept}]})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    git_dir = args.mirror / REPO / "repo"
    streams = []
    for family in FAMILIES:
        for name in ("tool_streaming", "multi_tool_streaming"):
            path = f"{FOLDER}/{family}/{name}.yaml"
            for interaction in yaml.safe_load(show(git_dir, path))["interactions"]:
                request = json.loads(interaction["request"]["body"])
                if not request.get("tools") or not request.get("stream"):
                    continue
                streams.append({
                    "source": f"charmbracelet/fantasy@{COMMIT} {path} (interaction {interaction['id']})",
                    "model": request["model"],
                    "tools": [{"name": t["function"]["name"], "parameters": t["function"].get("parameters", {})}
                              for t in request["tools"]],
                    "chunks": events(interaction["response"]["body"]),
                })
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"license": "Apache-2.0 (charmbracelet/fantasy)", "streams": streams},
                                   ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{len(streams)} streams -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
