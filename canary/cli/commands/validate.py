"""`canary validate`: check the files people edit by hand before they reach main (docs/judge.md, Working on
the state by hand), with the very parsers canary uses: one definition of each format. It warns (exit
0) when a configured positive control is not among the last saved discovery's endpoints: such a control
is never probed, so its model's refusal probe stays unverified every round. It warns
too, as `canary incident add` does (_endpoint_tags.py), about an entry's endpoint tag no discovery listed.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from pathlib import Path

import click

from canary.cli.commands._endpoint_tags import known_endpoints, unlisted
from canary.cli.commands._options import PATH, Invocation, common, pass_invocation
from canary.state import audit
from canary.state.judge_files import load_state
from canary.state.maintenance import load_maintenance
from canary.state.silences import load_silences
from core.config import Config, ConfigError
from core.layer_files import read_layer
from core.layers import LAYERS, SUSPENSION
from core.store import StoreError
from probes.round.planning import SnapshotError, read_snapshot


@click.command(
    "validate",
    short_help="check canary.yaml, the exclusion, silences and maintenance files, the state and audit log",
    help="Parse canary.yaml, exclusions/builtin.yaml, exclusions/incidents.yaml, the judge's "
         "state file and its audit log, exclusions/silences.yaml and exclusions/maintenance.yaml "
         "exactly as canary will. Exit 1 with the file and line of each problem; nothing is written.")
@common(files=("builtin", "incidents", "state", "audit", "silences", "maintenance"))
@click.option("--discovery", "discovery_path", type=PATH, default=None, metavar="FILE",
              help="a saved discovery snapshot to check `controls` against "
                   "(default: <paths.reports>/discovery.json, written by every round)")
@pass_invocation
def validate(invocation: Invocation, discovery_path: Path | None) -> int:
    try:
        config = invocation.config()
    except ConfigError as exc:  # validate's verdict on canary.yaml ("invalid", exit 1), not a refusal
        print(f"canary validate: {exc}", file=sys.stderr)
        return 1
    paths = config.paths
    # Every layer's file (core/layers.py LAYERS); the state is read whole, as the judge reads it.
    files = paths.layer_paths()
    checks: list[tuple[Path, Callable[[], object]]] = [
        (files[layer.name], functools.partial(load_state, files[layer.name]) if layer.name == SUSPENSION
         else functools.partial(read_layer, layer, files[layer.name])) for layer in LAYERS] + [
        (paths.silences, functools.partial(load_silences, paths.silences, invocation.now())),
        (paths.maintenance, functools.partial(load_maintenance, paths.maintenance)),
    ]
    problems = 0
    known, source = known_endpoints(config, invocation.now(), discovery_path)
    print(f"ok    {config.source} ({len(config.models)} model(s), mode {config.mode})")
    for path, check in checks:
        try:
            loaded = check()
        except ValueError as exc:  # StoreError and the state parser's errors are ValueErrors
            print(f"FAIL  {exc}", file=sys.stderr)
            problems += 1
            continue
        state = "missing (empty)" if not path.exists() else _describe(loaded)
        print(f"ok    {path}: {state}")
        for model in _unconfigured(loaded, config.models):
            print(f"note  {path}: model {model!r} is not in {config.source}; its entries apply to nothing "
                  "until it is configured")
        for entry in loaded if isinstance(loaded, tuple) else ():
            warning = unlisted(getattr(entry, "model", None), getattr(entry, "provider", None), known, source)
            if warning:
                print(f"warn  {path}: {warning}")
    fails, notes = audit.problems(paths.audit)
    for line in fails:
        print(f"FAIL  {line}", file=sys.stderr)
    problems += len(fails)
    if not fails:
        found = "every line a record" if Path(paths.audit).exists() else "missing (empty)"
        print(f"ok    {paths.audit}: {found}")
    for line in notes:
        print(f"note  {line}")
    for line in control_warnings(config, discovery_path or Path(paths.reports) / "discovery.json"):
        print(line)
    return 1 if problems else 0


def control_warnings(config: Config, snapshot: Path) -> list[str]:
    """`warn`/`note` lines about configured controls the saved discovery does not list."""
    controls = {m: tags for m, tags in config.controls.items() if tags}
    if not controls:
        return []
    out = [f"warn  {config.source}: controls.{m} names a model that is not in models: it is never probed"
           for m in sorted(controls) if m not in config.models]
    try:
        doc = read_snapshot(snapshot)
    except (SnapshotError, StoreError) as exc:  # missing, unreadable, not a snapshot: the check is skipped, said why
        return out + [f"note  {config.source}: controls not checked: no readable discovery snapshot ({exc}) "
                      "(run a round, or pass --discovery FILE)"]
    taken = f"{snapshot} (upstream {doc.upstream or '?'}, taken {doc.taken_at or '?'})"
    if doc.upstream == "simulator":
        return out + [f"note  {config.source}: controls not checked: {taken} comes from a simulator, whose "
                      "scenarios bring their own controls; a round against the real upstream saves one to check"]
    endpoints = {m: {e.provider for e in entry.endpoints} for m, entry in doc.plan.models.items()}
    for model, tags in sorted(controls.items()):
        if model not in endpoints:
            out.append(f"note  {config.source}: controls.{model} not checked: {taken} has no endpoints of {model}")
            continue
        for tag in tags:
            if tag not in endpoints[model]:
                out.append(
                    f"warn  {config.source}: controls.{model}: {tag} is not among the "
                    f"{len(endpoints[model])} endpoints in {taken}: it is never probed, "
                    f"so every refusal pass of {model} is inconclusive (no clean round, no early restore); "
                    "name a served host (`canary discover`) or remove it")
    return out


def _describe(loaded: object) -> str:
    return f"{len(loaded)} entr{'y' if len(loaded) == 1 else 'ies'}" if isinstance(loaded, tuple) else "valid"


def _unconfigured(loaded: object, models: tuple[str, ...]) -> list[str]:
    if not isinstance(loaded, tuple):
        return []
    return sorted({e.model for e in loaded if e.model is not None} - set(models))
