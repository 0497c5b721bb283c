"""`canary ignore --at TIME`: the provider.ignore of a past moment (canary/history/past.py); stdout the
lists as `canary ignore` prints them, stderr where each entry comes from and what cannot be known."""

from __future__ import annotations

import json
import sys
from datetime import datetime

from canary.history.past import PastIgnore, ignore_at
from canary.state import audit
from core.config import Config
from core.layer_files import read_layers
from core.layers import PEOPLE_LAYERS
from core.times import stamp
from core.untrusted import clean


def run_at(config: Config, at: datetime, model: str | None) -> int:
    exclusions = read_layers(config.paths.layer_paths(PEOPLE_LAYERS))  # the suspensions: the audit log's
    log = audit.read(config.paths.audit)
    for problem in log.set_aside:
        print(f"canary ignore: warning: {problem} (that audit line is skipped)", file=sys.stderr)
    if model is not None:
        models = [model]
    else:
        models = sorted({line.model for line in log.lines if line.model not in ("", "*")}
                        | {e.model for e in exclusions} | set(config.models))
    answers = [ignore_at(m, at, log.lines, exclusions, torn_lines=log.torn) for m in models]
    if model is not None:
        print(json.dumps(answers[0].ignore))
    else:
        print(json.dumps({a.model: a.ignore for a in answers}, sort_keys=True))
    for answer in answers:
        print(explain(answer), file=sys.stderr)
    if answers:
        print("caveats:\n" + "\n".join(f"  - {c}" for c in answers[0].caveats), file=sys.stderr)
    return 0


def explain(answer: PastIgnore) -> str:
    lines = [f"{clean(answer.model)} at {stamp(answer.at)}:"]
    for e in answer.entries:
        lines.append(f"  {clean(e.provider)}  [{e.layer}]  {clean(e.source, 240)}")
    if not answer.entries:
        lines.append("  (nothing excluded)")
    for e in answer.observe_only:
        lines.append(f"  ({clean(e.provider)} would have been excluded in enforce mode)  {clean(e.source, 240)}")
    return "\n".join(lines)
