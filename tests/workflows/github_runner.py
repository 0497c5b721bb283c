"""What GitHub does around the workflow's scripts, reproduced from the actions' source at the pinned SHAs.

Nothing here is GitHub; each piece copies one documented or read behaviour, so a test can run the
workflow's own scripts over the files GitHub would lay out and the values it would set:

- `upload()`: actions/upload-artifact v7.0.0 (src/shared/search.ts `findFilesToUpload`): one
  directory searched is the artifact's root (its contents are stored, not the folder itself); a
  single file is stored without its folders; several paths (one a line) are stored below their
  least common ancestor; hidden files are left out (include-hidden-files).
- `Run.download()`: actions/download-artifact v8.0.1 (src/download-artifact.ts `run`): `name`
  downloads that artifact into `path`; `pattern` lists the run's artifacts (`latest: true`: the
  newest of each name, across the run's attempts) filtered by minimatch, and unpacks each into
  `path/<name>` UNLESS merge-multiple is set or exactly one artifact matched (`artifacts.length
  === 1`): then flat into `path`. A name that is not there fails the step.
- `Run` keeps artifacts across attempts: "Re-run failed jobs" keeps the jobs that succeeded and
  their artifacts; a re-run job uploads a newer artifact of the same name.
- `evaluate()`: the part of GitHub's expression language the workflow uses (`!`, `&&`, `||`,
  `==`, `!=`, parentheses, strings, contexts such as `needs.report.outputs.publish`, and the
  status functions). A job's or step's `if:` without a status function means `success() && (...)`.
  String comparison ignores case and a missing property reads as '' (GitHub's null == '').
- `run_step()`: a `run:` script as `shell: bash` runs it (bash --noprofile --norc -eo pipefail),
  with the step's `env` evaluated, GITHUB_OUTPUT collected into the step's outputs, and a
  recording `canary` first on PATH (or, with `canary=`, a script of the test's: `real_canary()`
  runs the installed canary, every command line still recorded).
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

STATUS_FUNCTIONS = ("success()", "failure()", "cancelled()", "always()")


# --- artifacts ---------------------------------------------------------------------------------

def upload(workspace: Path, path: str) -> dict[str, bytes]:
    """The files one upload-artifact step stores for `path` (files or directories, one a line), by
    their path inside the artifact. A path that is not there adds nothing (if-no-files-found: warn)."""
    searched = [workspace / line.strip() for line in path.splitlines() if line.strip()]
    root = Path(os.path.commonpath(searched)) if len(searched) > 1 else searched[0]
    root = root.parent if root.is_file() else root
    files = {}
    for found in sorted(f for s in searched for f in ([s] if s.is_file() else s.rglob("*"))):
        inside = found.relative_to(root)
        if found.is_file() and not any(part.startswith(".") for part in inside.parts):
            files[inside.as_posix()] = found.read_bytes()
    return files


class ArtifactNotFound(RuntimeError):
    pass


@dataclass
class Run:
    """One workflow run's artifacts, every attempt's (the newest of each name wins a download)."""

    artifacts: list[tuple[int, str, dict[str, bytes]]] = field(default_factory=list)
    attempt: int = 1

    def store(self, name: str, files: dict[str, bytes]) -> None:
        if files:
            self.artifacts.append((self.attempt, name, files))

    def latest(self) -> dict[str, dict[str, bytes]]:
        newest: dict[str, tuple[int, dict[str, bytes]]] = {}
        for attempt, name, files in self.artifacts:
            if name not in newest or attempt >= newest[name][0]:
                newest[name] = (attempt, files)
        return {name: files for name, (_, files) in sorted(newest.items())}

    def download(self, workspace: Path, with_: Mapping[str, Any]) -> list[str]:
        """Lay out `with_['path']` as download-artifact does; returns the artifact names."""
        root = workspace / str(with_.get("path", "."))
        merge = str(with_.get("merge-multiple", "false")).lower() == "true"
        found = self.latest()
        if "name" in with_:
            if with_["name"] not in found:
                raise ArtifactNotFound(f"Unable to download artifact(s): Artifact '{with_['name']}' not found")
            chosen, single = {with_["name"]: found[with_["name"]]}, True
        else:
            pattern = str(with_.get("pattern", "*"))
            chosen = {n: f for n, f in found.items() if fnmatch.fnmatchcase(n, pattern)}
            single = False
        for name, files in chosen.items():
            target = root if single or merge or len(chosen) == 1 else root / name
            for inside, data in files.items():
                (target / inside).parent.mkdir(parents=True, exist_ok=True)
                (target / inside).write_bytes(data)
        root.mkdir(parents=True, exist_ok=True)
        return list(chosen)


# --- expressions -------------------------------------------------------------------------------

_TOKEN = re.compile(r"\s*(?:(?P<str>'(?:[^']|'')*')|(?P<op>&&|\|\||==|!=|!|\(|\))"
                    r"|(?P<call>[A-Za-z]+\(\))|(?P<word>[A-Za-z_][\w.-]*))")


def _tokens(text: str) -> list[tuple[str, str]]:
    out, at, text = [], 0, text.strip()
    while at < len(text):
        m = _TOKEN.match(text, at)
        if m is None or m.end() == at:
            raise ValueError(f"cannot read the expression at: {text[at:]!r}")
        kind = m.lastgroup or ""
        out.append((kind, m.group(kind)))
        at = m.end()
    return out


@dataclass
class Contexts:
    """The values an expression can read, and the job's or step's status so far."""

    values: Mapping[str, Any]
    succeeded: bool = True     # success(): nothing before failed (for a job: every job it depends on)
    cancelled_run: bool = False

    def lookup(self, dotted: str) -> Any:
        if dotted in ("true", "false"):
            return dotted == "true"
        value: Any = self.values
        for part in dotted.split("."):
            value = value.get(part, "") if isinstance(value, Mapping) else ""
        return value

    def call(self, name: str) -> bool:
        return {"success()": self.succeeded and not self.cancelled_run,
                "failure()": not self.succeeded and not self.cancelled_run,
                "cancelled()": self.cancelled_run, "always()": True}[name]


def _strip(expression: str) -> str:
    text = expression.strip()
    if text.startswith("${{") and text.endswith("}}"):
        text = text[3:-2]
    return text.strip()


def evaluate(expression: str, contexts: Contexts) -> Any:
    """The value of one expression (`${{ }}` optional)."""
    tokens = _tokens(_strip(expression))
    value, rest = _or(tokens, contexts)
    if rest:
        raise ValueError(f"unexpected {rest[0][1]!r} in {expression!r}")
    return value


def condition(expression: str | bool | None, contexts: Contexts) -> bool:
    """Whether a job or step with this `if:` runs (GitHub adds `success() &&` without a status function)."""
    if expression is None:
        return contexts.call("success()")
    text = _strip(str(expression)).replace("${{", "").replace("}}", "")
    if not any(f in text for f in STATUS_FUNCTIONS):
        text = f"success() && ({text})"
    return _truthy(evaluate(text, contexts))


def _truthy(value: Any) -> bool:
    return value not in ("", False, None, 0)


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, str) and isinstance(b, str):
        return a.lower() == b.lower()
    return bool(a == b)


Tokens = list[tuple[str, str]]


def _chain(tokens: Tokens, c: Contexts, op: str, operand: Any, combine: Any) -> tuple[Any, Tokens]:
    """`operand (op operand)*`, folded left with `combine` (GitHub's && and || return an operand)."""
    left, tokens = operand(tokens, c)
    while tokens and tokens[0][1] == op:
        right, tokens = operand(tokens[1:], c)
        left = combine(left, right)
    return left, tokens


def _or(tokens: Tokens, c: Contexts) -> tuple[Any, Tokens]:
    return _chain(tokens, c, "||", _and, lambda left, right: left if _truthy(left) else right)


def _and(tokens: Tokens, c: Contexts) -> tuple[Any, Tokens]:
    return _chain(tokens, c, "&&", _compare, lambda left, right: right if _truthy(left) else left)


def _compare(tokens: list[tuple[str, str]], c: Contexts) -> tuple[Any, list[tuple[str, str]]]:
    left, tokens = _unary(tokens, c)
    while tokens and tokens[0][1] in ("==", "!="):
        op = tokens[0][1]
        right, tokens = _unary(tokens[1:], c)
        left = _equal(left, right) if op == "==" else not _equal(left, right)
    return left, tokens


def _unary(tokens: list[tuple[str, str]], c: Contexts) -> tuple[Any, list[tuple[str, str]]]:
    if not tokens:
        raise ValueError("the expression ends too early")
    kind, text = tokens[0]
    if text == "!":
        value, rest = _unary(tokens[1:], c)
        return not _truthy(value), rest
    if text == "(":
        value, rest = _or(tokens[1:], c)
        if not rest or rest[0][1] != ")":
            raise ValueError("a parenthesis is not closed")
        return value, rest[1:]
    if kind == "str":
        return text[1:-1].replace("''", "'"), tokens[1:]
    if kind == "call":
        return c.call(text), tokens[1:]
    if kind == "word":
        return c.lookup(text), tokens[1:]
    raise ValueError(f"unexpected {text!r}")


def substitute(text: str, contexts: Contexts) -> str:
    """A `with:`/`env:` value with each ${{ expression }} replaced by its value."""
    return re.sub(r"\$\{\{(.*?)\}\}", lambda m: _show(evaluate(m.group(1), contexts)), text)


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


# --- scripts -----------------------------------------------------------------------------------

FAKE_CANARY = """#!{python}
# Records each call (cwd, argv) and plays the part: `canary probe --reports DIR` leaves the shard
# the test put in $FAKE_SHARD there; $FAKE_STDOUT_<SUBCOMMAND> is printed and $FAKE_EXIT_<SUBCOMMAND>
# is the exit code (default 0).
import json, os, shutil, sys
args = sys.argv[1:]
with open(os.environ["FAKE_CANARY_LOG"], "a") as log:
    log.write(json.dumps({{"cwd": os.getcwd(), "argv": args}}) + "\\n")
if args[:1] == ["probe"] and os.environ.get("FAKE_SHARD"):
    reports = args[args.index("--reports") + 1]
    os.makedirs(reports, exist_ok=True)
    shutil.copy(os.environ["FAKE_SHARD"], os.path.join(reports, "results.json"))
    os.makedirs(os.path.join(reports, "allure-results"), exist_ok=True)
    open(os.path.join(reports, "allure-results", "x-result.json"), "w").write("{{}}")
name = args[0].upper().replace("-", "_")
sys.stdout.write(os.environ.get("FAKE_STDOUT_" + name, ""))
sys.exit(int(os.environ.get("FAKE_EXIT_" + name, "0")))
"""


@dataclass
class StepRun:
    code: int
    outputs: dict[str, str]
    calls: list[list[str]]
    stderr: str


REAL_CANARY = """#!{python}
# Records each call (cwd, argv), then runs the real canary. $CANARY_TEST_NOW, when set, is the
# clock `canary judge` is given (--now): a test never depends on today's date.
import json, os, sys
args = sys.argv[1:]
with open(os.environ["FAKE_CANARY_LOG"], "a") as log:
    log.write(json.dumps({{"cwd": os.getcwd(), "argv": args}}) + "\\n")
if args[:1] == ["judge"] and os.environ.get("CANARY_TEST_NOW"):
    args += ["--now", os.environ["CANARY_TEST_NOW"]]
from canary.cli.main import main
sys.exit(main(args))
"""


def fake_canary(bin_dir: Path, script_text: str | None = None) -> Path:
    bin_dir.mkdir(parents=True, exist_ok=True)
    script = bin_dir / "canary"
    script.write_text(script_text or FAKE_CANARY.format(python=sys.executable))
    script.chmod(0o755)
    return script


def real_canary() -> str:
    """The `canary` script that runs the installed canary (this interpreter's), recording each call."""
    return REAL_CANARY.format(python=sys.executable)


def run_step(step: Mapping[str, Any], workspace: Path, contexts: Contexts, *, bin_dir: Path,
             extra_env: Mapping[str, str] | None = None, canary: str | None = None) -> StepRun:
    """Run one `run:` step in `workspace` as the runner does, with the recording canary on PATH."""
    fake_canary(bin_dir, canary)
    log = bin_dir.parent / f"calls-{os.getpid()}.jsonl"
    log.write_text("")
    output = bin_dir.parent / "github-output"
    output.write_text("")
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", "HOME": str(workspace),
           "GITHUB_OUTPUT": str(output), "FAKE_CANARY_LOG": str(log), **(extra_env or {})}
    env.update({k: substitute(str(v), contexts) for k, v in step.get("env", {}).items()})
    script = bin_dir.parent / "step.sh"
    script.write_text(step["run"])
    done = subprocess.run([shutil.which("bash") or "bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                          cwd=workspace, env=env, capture_output=True, text=True, timeout=60, check=False)
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines() if "=" in line)
    calls = [json.loads(line)["argv"] for line in log.read_text().splitlines()]
    return StepRun(done.returncode, outputs, calls, done.stderr)


# --- jobs --------------------------------------------------------------------------------------

@dataclass
class JobRun:
    """How a job ended, as the `needs` context of later jobs sees it, and what it did."""

    result: str                                   # success | failure
    outputs: dict[str, str]                       # the job's `outputs:`, set whatever the result
    steps: dict[str, dict[str, Any]]              # id -> outcome, conclusion, outputs
    ran: list[str]                                # the names (or scripts) of the steps that ran
    calls: list[list[str]]                        # every `canary` command line, in order

    def needs(self) -> dict[str, Any]:
        return {"result": self.result, "outputs": self.outputs}


SETUP_SCRIPTS = ("python -m pip install", "npm ci")
Action = Any  # a callable (step, workspace, contexts) -> "success" | "failure" for one `uses:` action


def run_job(job: Mapping[str, Any], workspace: Path, values: Mapping[str, Any], *, bin_dir: Path,
            run: Run | None = None, actions: Mapping[str, Action] | None = None,
            extra_env: Mapping[str, str] | None = None, job_succeeded: bool = True,
            canary: str | None = None) -> JobRun:
    """Run a job's steps in order as the runner does: each `if:` over the status so far (a failed
    step skips later steps without a status function; continue-on-error makes its conclusion a
    success), `run:` scripts in bash (but the install steps), artifacts through `run`, other actions through `actions`
    (by name before the @; absent: they succeed and do nothing, like setup-python here)."""
    workspace.mkdir(parents=True, exist_ok=True)
    steps_ctx: dict[str, dict[str, Any]] = {}
    failed, ran, calls = not job_succeeded, [], []
    for n, step in enumerate(job["steps"]):
        contexts = Contexts({**values, "steps": steps_ctx, "job": {"status": "failure" if failed else "success"}},
                            succeeded=not failed)
        label = str(step.get("name") or step.get("uses") or step.get("run", "")[:60])
        if not condition(step.get("if"), contexts):
            steps_ctx[str(step.get("id", n))] = {"outcome": "skipped", "conclusion": "skipped", "outputs": {}}
            continue
        ran.append(label)
        outputs: dict[str, str] = {}
        if "run" in step and str(step["run"]).startswith(SETUP_SCRIPTS):
            outcome = "success"  # installing canary and Allure: the runner's setup, not what is tested
        elif "run" in step:
            done = run_step(step, workspace, contexts, bin_dir=bin_dir, extra_env=extra_env, canary=canary)
            outcome, outputs = ("success" if done.code == 0 else "failure"), done.outputs
            calls += done.calls
        else:
            outcome = _use(step, workspace, contexts, run, actions or {})
        conclusion = "success" if step.get("continue-on-error") is True else outcome
        failed = failed or conclusion == "failure"
        steps_ctx[str(step.get("id", n))] = {"outcome": outcome, "conclusion": conclusion, "outputs": outputs}
    final = Contexts({**values, "steps": steps_ctx})
    outputs = {k: substitute(str(v), final) for k, v in job.get("outputs", {}).items()}
    return JobRun("failure" if failed else "success", outputs, steps_ctx, ran, calls)


def _use(step: Mapping[str, Any], workspace: Path, contexts: Contexts, run: Run | None,
         actions: Mapping[str, Action]) -> str:
    action = str(step["uses"]).split("@")[0]
    with_ = {k: substitute(str(v), contexts) for k, v in step.get("with", {}).items()}
    if action in actions:
        return str(actions[action]({**step, "with": with_}, workspace, contexts))
    if run is not None and action == "actions/download-artifact":
        try:
            run.download(workspace, with_)
        except ArtifactNotFound:
            return "failure"
        return "success"
    if run is not None and action == "actions/upload-artifact":
        run.store(with_["name"], upload(workspace, with_["path"]))
        return "success"
    return "success"
