"""`canary explain --model M --at T [--provider P | --generation ID] [--production DIR] [--json]`.

What canary knew of a model's endpoints around a moment a user reported (canary/history/explain.py):
each one's state and whether provider.ignore held it, the rounds before and after, the production
evidence, the route audit and the user reports. `--generation` asks OpenRouter which provider served
that reply (`GET /generation`, with OPENROUTER_API_KEY) and shows its endpoint. Exit 0; 2 when a
file cannot be read or the generation cannot be looked up.
"""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path

import click

from canary.cli.commands._options import PATH, TIME, Invocation, common, pass_invocation, tag
from canary.history.explain import Asked, explain, to_json, to_text
from canary.history.store import history_root
from canary.state import audit
from canary.state.judge_files import load_layers
from core.errors import UpstreamError
from core.upstream import resolve_upstream
from probes.http.generation import lookup


@click.command("explain", short_help="a model's endpoints around a moment: state, rounds, production, reports")
@click.option("--model", required=True, callback=tag, help="model id")
@click.option("--at", "at", type=TIME, required=True, help="the moment (ISO 8601; naive means UTC)")
@click.option("--provider", default=None, callback=tag, help="one endpoint's tag (default: every endpoint)")
@click.option("--generation", default=None, help="a reply's generation id: show the endpoint that served it")
@click.option("--production", type=PATH, default=None,
              help="a folder of production records (the state branch's production/)")
@click.option("--json", "as_json", is_flag=True, help="JSON for a script")
@common(files=("state", "audit", "builtin", "incidents", "history"), now=False)
@pass_invocation
def explain_command(invocation: Invocation, model: str, at: datetime, provider: str | None, generation: str | None,
                    production: Path | None, as_json: bool) -> int:
    """A model's endpoints around a moment: state, rounds, production evidence, route audit, user reports."""
    config = invocation.config()
    served_by = None
    if generation is not None:
        upstream = resolve_upstream()
        if upstream is None:
            raise UpstreamError("--generation asks OpenRouter who served the reply: set OPENROUTER_API_KEY")
        served_by = lookup(upstream, generation)
    state, exclusions = load_layers(config.paths.state, config.paths)
    log = audit.read(config.paths.audit)
    for problem in log.set_aside:
        print(f"canary explain: warning: {problem} (that audit line is skipped)", file=sys.stderr)
    story = explain(model, at, history=history_root(config.paths), audit_lines=log.lines,
                    exclusions=exclusions,
                    known=state.models.get(model, {}), production=production,
                    asked=Asked(provider, generation, served_by))
    print(to_json(story) if as_json else to_text(story).rstrip("\n"))
    return 0
