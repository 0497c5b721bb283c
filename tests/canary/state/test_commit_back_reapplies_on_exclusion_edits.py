"""Review: an exclusion edit pushed during a round must be weighed by the capacity floor.

The judge computes the floor from the exclusion files it read. If a person excludes another host
meanwhile and the commit-back merely rebases, the pushed state holds a suspension that the floor
would have refused: fewer than two usable endpoints reach provider.ignore. When the remote moved
an exclusion file, commit-back must re-apply the round (it can: --reapply) instead of rebasing.
"""

from __future__ import annotations

import json
from pathlib import Path

from git_world import Clone, git, remote_file
from judge_cli_support import HALF_HOUR, MODEL, T0, iso, results

THREE = ("aurora/fp8", "borealis/bf16", "cirrus/fp8")
BAD, OTHER = THREE[0], THREE[1]
HAND_EDIT = f'"{MODEL}":\n  - provider: {OTHER}  # by hand\n    reason: filters\n    added_at: 2026-11-29\n'


def _judge(bot: Clone, n: int) -> Path:
    at = T0 + n * HALF_HOUR
    path = bot.dir / "reports" / f"round{n}.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(results({BAD: "fail"}, at=at, round_id=f"round-{n}", providers=THREE)))
    assert bot.canary("judge", str(path), "--now", iso(at), "--no-notify") == 0
    return path


def test_an_incident_pushed_during_the_round_is_weighed_by_the_floor(main_world: tuple[Path, Clone, Clone]) -> None:
    remote, bot, person = main_world
    _judge(bot, 1)
    assert bot.commit() == 0
    round2 = _judge(bot, 2)  # would suspend BAD: 2 of 3 stay usable
    assert bot.state()["models"][MODEL][BAD]["suspension"] is not None
    git(person.dir, "pull", "--rebase", "origin", "main")
    incidents = person.dir / "exclusions/incidents.yaml"
    incidents.write_text(incidents.read_text() + HAND_EDIT)
    git(person.dir, "commit", "-am", "incident: borealis filters roleplay")
    git(person.dir, "push", "origin", "HEAD:main")
    assert bot.commit("--reapply", str(round2)) == 0
    assert OTHER in remote_file(remote, "exclusions/incidents.yaml")  # the person's edit survived
    state = json.loads(remote_file(remote, "state/canary-state.json"))
    assert "round-2" in state["applied_rounds"]
    # With borealis excluded by the person, suspending aurora would leave one usable endpoint.
    assert state["models"][MODEL][BAD]["suspension"] is None
    audit = [json.loads(line) for line in remote_file(remote, "state/audit.jsonl").splitlines()]
    assert [a["action"] for a in audit if a.get("round_id") == "round-2"] == ["floor_held"]
