"""A real bare repository, the bot's shallow clone (what actions/checkout gives) and a person's clone.

The remote can act like a protected GitHub main: a pre-receive hook refuses the bot's commits on
main with GitHub's own wording, as a ruleset requiring pull requests or status checks does for
the workflow's GITHUB_TOKEN (which can never be on a bypass list). People's commits pass, as a
merged pull request would.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from judge_cli_support import HALF_HOUR, PROVIDERS, T0, iso, results

from canary.cli.main import main
from canary.state.git import BOT_IDENTITY

INCIDENTS_HEADER = "# Incidents, edited by people.\n# Keep this comment.\n"
PROTECTED_MAIN_HOOK = f"""#!/bin/sh
# A protected main: the bot's commits are refused, people's (merged pull requests) pass.
while read old new ref; do
  if [ "$ref" = refs/heads/main ] && git log --format=%ae "$new" --not --all | grep -qx '{BOT_IDENTITY[1]}'; then
    echo "GH006: Protected branch update failed for refs/heads/main." >&2
    echo "Changes must be made through a pull request." >&2
    exit 1
  fi
done
"""
RULE_ON_STATE_HOOK = """#!/bin/sh
# A ruleset that also (wrongly) covers the state branch.
while read old new ref; do
  if [ "$ref" = refs/heads/canary-state ]; then
    echo "GH013: Repository rule violations found for refs/heads/canary-state." >&2
    echo "- Changes must be made through a pull request." >&2
    exit 1
  fi
done
"""


def git(cwd: Path, *args: str) -> str:
    out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    return out.stdout


class Clone:
    """One working copy with its own canary.yaml (kept outside the repository)."""

    def __init__(self, root: Path, remote: Path, name: str, *, shallow: bool, state_branch: str) -> None:
        self.dir = root / name
        git(root, "clone", *(["--depth", "1"] if shallow else []), f"file://{remote}", name)
        self.config = root / f"{name}.yaml"
        d = self.dir
        self.config.write_text(
            f"mode: enforce\npaths:\n  reports: {d / 'reports'}\n  state: {d / 'state/canary-state.json'}\n"
            f"  audit: {d / 'state/audit.jsonl'}\n  builtin: {d / 'exclusions/builtin.yaml'}\n"
            f"  incidents: {d / 'exclusions/incidents.yaml'}\n  state_branch: '{state_branch}'\n")

    def canary(self, *args: str) -> int:
        return main(["--config", str(self.config), *args])

    def results(self, n: int, spec: dict[str, Any] | None = None, **kw: Any) -> Path:
        path = self.dir / "reports" / f"round{n}.json"
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps(results(spec, at=T0 + n * HALF_HOUR, round_id=f"round-{n}", **kw)))
        return path

    def judge(self, n: int, spec: dict[str, Any] | None = None, **kw: Any) -> Path:
        path = self.results(n, spec, **kw)
        assert self.canary("judge", str(path), "--now", iso(T0 + n * HALF_HOUR), "--no-notify") == 0
        return path

    def fetch_state(self, *extra: str) -> int:
        return self.canary("fetch-state", "--repo", str(self.dir), *extra)

    def commit(self, *extra: str) -> int:
        return self.canary("commit", "--repo", str(self.dir), "--branch", "main", *extra)

    def state(self) -> dict[str, Any]:
        return dict(json.loads((self.dir / "state/canary-state.json").read_text()))

    def decisions(self) -> dict[str, Any]:
        return dict(json.loads((self.dir / "reports/decisions.json").read_text()))


@dataclass
class World:
    root: Path
    remote: Path
    bot: Clone
    person: Clone

    def show(self, ref: str, path: str) -> str:
        return git(self.remote, "show", f"{ref}:{path}")

    def tip(self, ref: str) -> str:
        return git(self.remote, "rev-parse", ref).strip()

    def has(self, ref: str) -> bool:
        return subprocess.run(["git", "rev-parse", "--verify", "--quiet", ref], cwd=self.remote,
                              capture_output=True, check=False).returncode == 0

    def hook(self, script: str) -> None:
        hook = self.remote / "hooks" / "pre-receive"
        hook.write_text(script)
        hook.chmod(0o755)

    def clone(self, name: str, *, state_branch: str = "canary-state", shallow: bool = True) -> Clone:
        return Clone(self.root, self.remote, name, shallow=shallow, state_branch=state_branch)

    def person_pushes_to_main(self, path: str, text: str, message: str) -> str:
        """A person's commit on main (a merged pull request); returns its id."""
        d = self.person.dir
        git(d, "pull", "--quiet", "--rebase", "origin", "main")
        (d / path).write_text(text)
        git(d, "add", path)
        git(d, "commit", "-m", message)
        git(d, "push", "origin", "HEAD:main")
        return git(d, "rev-parse", "HEAD").strip()


def make_world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, state_branch: str) -> World:
    """A seeded remote: the exclusions on main."""
    monkeypatch.setenv("HOME", str(tmp_path))  # no global git identity: the bot must bring its own
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for name in ("GITHUB_REF_NAME", "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "CANARY_WEBHOOK_URL", "GITHUB_ACTIONS"):
        monkeypatch.delenv(name, raising=False)
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "--quiet", "--bare", "-b", "main", str(remote))
    seed = tmp_path / "seed"
    git(tmp_path, "clone", "--quiet", f"file://{remote}", "seed")
    (seed / "exclusions").mkdir()
    (seed / "exclusions/incidents.yaml").write_text(INCIDENTS_HEADER)
    (seed / "exclusions/builtin.yaml").write_text("# reviewed\n")
    git(seed, "add", ".")
    git(seed, "-c", "user.name=seed", "-c", "user.email=seed@example.invalid", "commit", "-m", "seed")
    git(seed, "push", "origin", "HEAD:main")
    bot = Clone(tmp_path, remote, "bot", shallow=True, state_branch=state_branch)
    person = Clone(tmp_path, remote, "person", shallow=False, state_branch=state_branch)
    git(person.dir, "config", "user.name", "Alice")
    git(person.dir, "config", "user.email", "alice@example.invalid")
    return World(tmp_path, remote, bot, person)


__all__ = ["HALF_HOUR", "INCIDENTS_HEADER", "PROTECTED_MAIN_HOOK", "PROVIDERS", "RULE_ON_STATE_HOOK", "T0", "Clone",
           "World", "git", "iso", "make_world", "results"]
