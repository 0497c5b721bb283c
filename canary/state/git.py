"""git in one repository, run one way: argument lists (never a shell), bytes or text, git's own
message in every CommitBackError. Without a configured identity, commits use the bot's.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from canary.state.commit_back import CommitBackError

BOT_IDENTITY = ("canary[bot]", "canary-bot@users.noreply.github.com")
MAX_GIT_MESSAGE = 800


class Git:
    """git in one repository; without a configured identity, commits (and rebases) use the bot's."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self.identity: list[str] = []
        if self.run("config", "user.email", check=False).returncode != 0:
            self.identity = ["-c", f"user.name={BOT_IDENTITY[0]}", "-c", f"user.email={BOT_IDENTITY[1]}"]

    def call(self, args: Sequence[str], stdin: bytes = b"",
             env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
        """The one way git runs here: bytes in and out, the exit code left to the caller."""
        return subprocess.run(["git", "-C", str(self.repo), *self.identity, *args], capture_output=True, input=stdin,
                              check=False, env={**os.environ, **env} if env else None)

    def run(self, *args: str, check: bool = True, stdin: str | None = None,
            env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        """git with text in and out (a path that is not UTF-8 survives as surrogate escapes; git's
        message, on stderr, is only ever shown, so what is not UTF-8 there is replaced)."""
        raw = self.call(args, (stdin or "").encode("utf-8", "surrogateescape"), env)
        result = subprocess.CompletedProcess(raw.args, raw.returncode, raw.stdout.decode("utf-8", "surrogateescape"),
                                             raw.stderr.decode("utf-8", "replace"))
        if check and result.returncode != 0:
            raise CommitBackError(f"git {args[0]} failed: {git_said(result)}")
        return result

    def run_bytes(self, *args: str, stdin: bytes = b"", env: Mapping[str, str] | None = None) -> bytes:
        """git with bytes in and out (paths and blobs need not be text); CommitBackError on failure."""
        result = self.call(args, stdin, env)
        if result.returncode != 0:
            said = git_said(subprocess.CompletedProcess(result.args, result.returncode, "",
                                                        result.stderr.decode("utf-8", "replace")))
            raise CommitBackError(f"git {args[0]} failed: {said}")
        return result.stdout

    def blob(self, commit: str, path: str) -> bytes | None:
        """The bytes of `path` at `commit`, or None when the commit has no such file."""
        result = self.call(("cat-file", "blob", f"{commit}:{path}"))
        return result.stdout if result.returncode == 0 else None


def current_branch(git: Git) -> str:
    """The checked-out branch; CommitBackError on a detached HEAD (or no repository)."""
    out = git.run("rev-parse", "--abbrev-ref", "HEAD", check=False)
    branch = out.stdout.strip()
    if out.returncode != 0 or not branch or branch == "HEAD":
        raise CommitBackError("cannot tell the current branch (detached HEAD?); pass --branch")
    return branch


def git_said(result: subprocess.CompletedProcess[str]) -> str:
    """git's own message (stderr), trimmed to its end: that is where the reason is."""
    text = (result.stderr or result.stdout or "").strip()
    return text[-MAX_GIT_MESSAGE:] if text else f"(no message; exit {result.returncode})"


def fetch_tip(git: Git, remote: str, branch: str, *, shallow: bool = False) -> str | None:
    """The current tip of remote/branch (objects included); None when it does not exist. `shallow` fetches
    only the tip, for the state branch in a clone already shallow (CI's: 48 commits a day nobody there
    needs); main never is (a --depth fetch into a full clone would hide history behind the tip)."""
    depth = ["--depth=1"] if shallow else []
    fetched = git.run("fetch", "--quiet", "--no-tags", *depth, remote, f"refs/heads/{branch}", check=False)
    if fetched.returncode == 0:
        return git.run("rev-parse", "--verify", "FETCH_HEAD^{commit}").stdout.strip()
    if git.run("ls-remote", "--exit-code", "--heads", remote, f"refs/heads/{branch}", check=False).returncode == 2:
        return None
    raise CommitBackError(f"cannot fetch {branch} from {remote}. git said: {git_said(fetched)}")


def is_shallow(git: Git) -> bool:
    return git.run("rev-parse", "--is-shallow-repository").stdout.strip() == "true"


def rev(git: Git, ref: str) -> str | None:
    found = git.run("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False)
    return found.stdout.strip() if found.returncode == 0 else None
