"""A judge killed in the middle of a write: every file is the old or the new complete version.

Two ways of killing it:
- at every I/O step of `canary judge` (before and after each os.write, os.fsync, os.replace, and
  halfway through each os.write), in a forked child that SIGKILLs itself there: exhaustive and
  fast (the child shares the parent's imports);
- a real `python -m canary judge` subprocess SIGKILLed at a random moment, a few times.
Then the same round is re-run to completion and must give the state of an uninterrupted run.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hostile_support import HALF_HOUR, PROVIDERS, T0, Files, iso, seeded

from canary.cli.main import main
from canary.history.store import read_span
from canary.state import audit
from core.field_rules import written

ROUND_AT = T0 + 3 * HALF_HOUR
HOOKED = ("write", "fsync", "replace")
ROOT = Path(__file__).resolve().parents[2]


def _prepare(folder: Path) -> tuple[Files, Path]:
    """A seeded folder one round further, and the results file of the round to be killed."""
    folder.mkdir(parents=True, exist_ok=True)
    f = seeded(folder)
    warm = f.results("warm.json", {PROVIDERS[1]: "fail"}, at=T0 + 2 * HALF_HOUR)
    assert f.canary("judge", str(warm), "--now", iso(T0 + 2 * HALF_HOUR), "--no-notify")[0] == 0
    return f, f.results("killed.json", {PROVIDERS[1]: "fail", PROVIDERS[2]: "fail"}, at=ROUND_AT)


def _args(f: Files, results: Path) -> list[str]:
    return ["--config", str(f.config), "judge", str(results), "--now", iso(ROUND_AT), "--no-notify"]


def _io_steps(f: Files, results: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The hooked calls an uninterrupted run makes, in order."""
    calls: list[str] = []
    for name in HOOKED:
        real = getattr(os, name)
        monkeypatch.setattr(os, name, lambda *a, _n=name, _r=real: (calls.append(_n), _r(*a))[1])
    try:
        assert main(_args(f, results)) == 0
    finally:
        monkeypatch.undo()
    return calls


def _killed_child(f: Files, results: Path, step: int, how: str) -> int:
    """Fork; the child runs the judge and SIGKILLs itself at hooked call number `step`."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child never returns
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            count = [0]

            def hook(name: str, real):  # type: ignore[no-untyped-def]
                def wrapper(*a):  # type: ignore[no-untyped-def]
                    count[0] += 1
                    if count[0] == step:
                        if how == "before":
                            os.kill(os.getpid(), signal.SIGKILL)
                        if how == "torn":
                            real(a[0], a[1][: max(1, len(a[1]) // 2)])
                            os.kill(os.getpid(), signal.SIGKILL)
                        result = real(*a)
                        os.kill(os.getpid(), signal.SIGKILL)
                        return result
                    return real(*a)
                return wrapper

            for name in HOOKED:
                setattr(os, name, hook(name, getattr(os, name)))
            os._exit(main(_args(f, results)))
        except BaseException:  # noqa: BLE001 - a forked child must never return into pytest
            os._exit(99)
    _, status = os.waitpid(pid, 0)
    return status


def _files(f: Files) -> dict[str, bytes]:
    return {name: p.read_bytes() if p.exists() else b"" for name, p in
            (("state", f.state), ("audit", f.audit), ("decisions", f.decisions))}


def _history(f: Files) -> list[tuple[str, int]]:
    """The rounds the history holds: (round id, number of cases) each."""
    root = f.state.parent / "history"
    return sorted((r.round_id, len(r.columns["model"])) for r in read_span(root).rounds) if root.exists() else []


def _assert_old_or_new(now: dict[str, bytes], old: dict[str, bytes], new: dict[str, bytes], torn: bool) -> None:
    assert now["state"] in (old["state"], new["state"])
    json.loads(now["state"])
    assert now["decisions"] in (old["decisions"], new["decisions"])
    json.loads(now["decisions"])
    added = new["audit"][len(old["audit"]):]
    assert now["audit"].startswith(old["audit"])
    tail = now["audit"][len(old["audit"]):]
    assert tail in (b"", added) or (torn and added.startswith(tail))
    if not torn:
        assert [json.loads(line) for line in now["audit"].splitlines()]


def test_a_judge_killed_at_any_io_step_leaves_old_or_new_files(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    ref, ref_results = _prepare(tmp_path / "reference")
    old = _files(ref)
    steps = _io_steps(ref, ref_results, monkeypatch)
    new = _files(ref)
    # decisions.json, state, then the history's round file (after the state: evidence only); one audit append
    assert steps.count("replace") == 3 and "write" in steps
    assert new["state"] != old["state"] and new["audit"] != old["audit"]

    trials = [(i + 1, how) for i, name in enumerate(steps) for how in ("before", "after")]
    trials += [(i + 1, "torn") for i, name in enumerate(steps) if name == "write"]
    outcomes: set[tuple[int, str, int]] = set()
    for k, (step, how) in enumerate(trials):
        f, results = _prepare(tmp_path / f"trial{k}")
        status = _killed_child(f, results, step, how)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, (step, how, status)
        _assert_old_or_new(_files(f), old, new, torn=how == "torn")
        leftovers = [p.name for p in f.state.parent.iterdir() if p.name.endswith(".tmp")]
        assert all(p.startswith(".") for p in leftovers)  # a temp file never takes a real file's name

        # Running the same round again finishes the job: the state of an uninterrupted run.
        assert main(_args(f, results)) == 0, (step, how)
        assert f.state.read_bytes() == new["state"], (step, how)
        assert _history(f) == _history(ref), (step, how)  # killed before the history write: recorded now
        log = audit.read(f.audit)
        assert log.torn == (1 if how == "torn" else 0) and log.set_aside == (), (step, how)
        before = [json.loads(line) for line in old["audit"].splitlines()]
        added = [json.loads(line) for line in new["audit"][len(old["audit"]):].splitlines()]
        # Killed between the audit append and the state's rename, the re-run does not log the
        # round twice (it skips the lines it finds for that round): exactly once, like the state.
        canonical = sorted(json.dumps(r, sort_keys=True) for r in before + added)
        assert sorted(json.dumps(written(r), sort_keys=True) for r in log.lines) == canonical, (step, how)
        outcomes.add((step, how, len(log.lines) - len(before) - len(added)))
    assert {dup for *_, dup in outcomes} == {0}


def test_a_torn_audit_line_never_swallows_the_next_record(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    path.write_bytes(b'{"action": "suspend", "time": "2026-12-01T00:00:00Z"}\n{"action": "rest')
    audit.append(path, [audit.AuditLine(time="2026-12-01T00:00:00Z", action="expired")])
    log = audit.read(path)
    assert [line.action for line in log.lines] == ["suspend", "expired"] and log.torn == 1


def test_a_real_judge_process_killed_at_random_moments(tmp_path: Path) -> None:
    rng = random.Random(20261129)
    ref, ref_results = _prepare(tmp_path / "reference")
    old = _files(ref)
    assert main(_args(ref, ref_results)) == 0
    new = _files(ref)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("GITHUB_STEP_SUMMARY", None)
    env.pop("CANARY_WEBHOOK_URL", None)
    runs = []
    for k in range(3):
        f, results = _prepare(tmp_path / f"proc{k}")
        proc = subprocess.Popen([sys.executable, "-m", "canary", *_args(f, results)], cwd=ROOT, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        runs.append((f, results, proc, time.monotonic() + rng.uniform(0.2, 2.5)))
    for f, results, proc, deadline in runs:
        time.sleep(max(0.0, deadline - time.monotonic()))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        _assert_old_or_new(_files(f), old, new, torn=False)
        assert main(_args(f, results)) == 0
        assert f.state.read_bytes() == new["state"]
        assert _history(f) == _history(ref)


def test_a_rerun_a_year_later_records_a_missing_round_and_touches_no_other_history_file(tmp_path: Path) -> None:
    f, results = _prepare(tmp_path / "late")
    assert main(_args(f, results)) == 0
    history = f.state.parent / "history"
    before = {p: p.read_bytes() for p in history.rglob("*") if p.is_file()}
    late = ["--config", str(f.config), "judge", str(results), "--now", iso(ROUND_AT + 365 * 48 * HALF_HOUR),
            "--no-notify"]
    assert main(late) == 0  # already applied: the history's old days are not compacted by a re-run
    assert {p: p.read_bytes() for p in history.rglob("*") if p.is_file()} == before
