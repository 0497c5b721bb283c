"""`canary lift --model M --provider P --reason R`: end a suspension by hand (audited).

The provider's failed streak restarts, so it is suspended again only after two fresh failed
rounds; its ladder rung is kept (a lifted host that fails again climbs the ladder).
"""

from __future__ import annotations

import argparse

from canary.cli.commands._options import add_common, config_of, now_of
from canary.state import audit
from canary.state.judge_files import load_state, save_state
from judge.suspension.rules import lift


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("lift", help="end a provider's suspension by hand")
    p.add_argument("--model", required=True)
    p.add_argument("--provider", required=True)
    p.add_argument("--reason", required=True, help="why (recorded in the audit log)")
    add_common(p, files=("state", "audit"))
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    config = config_of(args)
    now = now_of(args)
    audit.check_appendable(config.paths.audit)
    state = load_state(config.paths.state, now=now)
    new_state, decision = lift(state, args.model, args.provider, now=now, reason=args.reason)
    audit.append(config.paths.audit, audit.decision_lines([decision], round_id=None, mode=config.mode, now=now))
    save_state(config.paths.state, new_state)
    print(f"canary lift: lifted the suspension of {args.provider} for {args.model}")
    return 0
