"""Production records reach the judge with no server (issue 39 item 3), end to end.

Two backends' samplers push their records through GitHub's contents API (the fake one, a real
HTTP server committing to a real bare repository) onto the state branch; each round fetches the
state as the workflow does, copies the branch's production/ from the same tip (the judge job's
`git archive`) and judges with `--production`. A record whose push failed is pushed late, after its
window's round, and the next round reads it. The rounds' own commits keep every record.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import tarfile
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from fake_github import REPO, TOKEN, FakeGitHub, fake_github
from git_world import HALF_HOUR, T0, World, git, iso, make_world
from judge_cli_support import files_in
from rules_factories import DAY

from core.production import record_json
from provider_ignore.production import Exporter, Reply
from provider_ignore.push import PushError, push

MODEL = "m/x"


def exporter(name: str, start: datetime) -> Exporter:
    sampler = Exporter(name, sample_rate=1.0)
    for i in range(6):
        sampler.observe(f"{name}-{i}", Reply(MODEL, "Aurora", "The door opened.", "stop"), now=start)
    return sampler


def send(gh: FakeGitHub) -> object:
    return lambda record: push(record, repository=REPO, token=TOKEN, api=gh.url, sleep=lambda _: None)


def round_reads(world: World, n: int, capsys: pytest.CaptureFixture[str]) -> str:
    """Round n as the workflow's judge job runs it: fetch-state, production/ from the fetched tip, judge, commit."""
    bot = world.bot
    assert bot.fetch_state() == 0
    folder = world.root / f"production-{n}"
    archive = subprocess.run(["git", "archive", "refs/canary/state-base", "production"], cwd=bot.dir,
                             capture_output=True, check=True).stdout
    tarfile.open(fileobj=io.BytesIO(archive)).extractall(folder, filter="data")
    capsys.readouterr()
    assert bot.canary("judge", str(bot.results(n)), "--now", iso(T0 + n * HALF_HOUR), "--no-notify",
                      "--production", str(folder / "production")) == 0
    said = capsys.readouterr().out
    assert bot.commit() == 0
    return next(line for line in said.splitlines() if "production evidence" in line)


def test_two_exporters_and_a_late_record_reach_the_rounds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    world = make_world(tmp_path, monkeypatch, state_branch="canary-state")
    world.bot.judge(1)
    assert world.bot.commit() == 0          # the state branch exists once canary has committed a round
    with fake_github() as gh:
        gh.git_remote = world.remote
        eu, us = exporter("eu-1", T0 + HALF_HOUR), exporter("us-1", T0 + HALF_HOUR)
        gh.fail_next(1, "ok")
        gh.fail_next(1, "409")  # the branch moved between eu-1's read and its write: read again, write again
        assert eu.flush(now=T0 + 2 * HALF_HOUR, send=send(gh)) == 1
        assert us.flush(now=T0 + 2 * HALF_HOUR, send=send(gh)) == 1
        assert round_reads(world, 2, capsys).endswith("2 record(s) from 2 exporter(s) in "
                                                      f"{tmp_path / 'production-2' / 'production'}")

        assert eu.flush(now=T0 + 3 * HALF_HOUR, send=send(gh)) == 1
        gh.fail_next(1, "502")
        with pytest.raises(PushError, match="HTTP 502"):
            us.flush(now=T0 + 3 * HALF_HOUR, send=send(gh))
        assert "3 record(s) from 2 exporter(s)" in round_reads(world, 3, capsys)   # us-1's second window: missing

        assert us.flush(now=T0 + 3 * HALF_HOUR + timedelta(minutes=10), send=send(gh)) == 1  # late, after round 3
        assert "4 record(s) from 2 exporter(s)" in round_reads(world, 4, capsys)   # round 4 reads it

        tip = world.tip("canary-state")
        first = Exporter("eu-1", sample_rate=1.0)   # a restarted process sends its first window again
        first.observe("eu-1-0", Reply(MODEL, "Aurora", "The door opened.", "stop"), now=T0 + HALF_HOUR)
        assert push(first.records(now=T0 + 2 * HALF_HOUR)[0], repository=REPO, token=TOKEN, api=gh.url) == "updated"
        assert push(first.records(now=T0 + 2 * HALF_HOUR)[0], repository=REPO, token=TOKEN, api=gh.url) == "unchanged"
        assert git(world.remote, "rev-list", "--count", f"{tip}..canary-state").strip() == "1"
    files = git(world.remote, "ls-tree", "-r", "--name-only", "canary-state", "production").split()
    assert files == ["production/eu-1/2026-11-29T223000Z.json", "production/eu-1/2026-11-29T230000Z.json",
                     "production/us-1/2026-11-29T223000Z.json", "production/us-1/2026-11-29T230000Z.json"]
    assert "state/canary-state.json" in git(world.remote, "ls-tree", "-r", "--name-only", "canary-state")


def test_a_refused_record_is_named_and_the_round_is_judged_without_it(tmp_path: Path) -> None:
    files = files_in(tmp_path)
    folder = tmp_path / "production"
    now = T0 + 4 * HALF_HOUR
    good = exporter("eu-1", now - HALF_HOUR).records(now=now)[0]
    record = json.loads(record_json(good))
    writes = {"eu-1/good.json": record,
              "eu-1/text.json": {**record, "served": [{"model": MODEL, "provider": "Aurora: the user wrote", "n": 5}]},
              "us-1/filed-wrong.json": record,
              "eu-1/future.json": {**record, "window_end": iso(now + HALF_HOUR)},
              "eu-1/old.json": {**record, "window_start": iso(now - 2 * DAY),
                                "window_end": iso(now - 2 * DAY + HALF_HOUR)}}
    for name, doc in writes.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(json.dumps(doc), encoding="utf-8")
    (folder / "eu-1" / "broken.json").write_text("{", encoding="utf-8")
    code, out, _ = files.canary("judge", str(files.results("r.json", at=now)), "--now", iso(now), "--no-notify",
                                "--production", str(folder))
    assert code == 0 and files.state.exists()
    refused = sorted(Path(name).name for name in re.findall(r"judged without it: (\S+?\.json)", out))
    assert refused == ["broken.json", "filed-wrong.json", "future.json", "text.json"], out
    assert "production evidence: 1 record(s) from 1 exporter(s)" in out
    assert "the user wrote" not in out.replace(repr("Aurora: the user wrote"), "")  # said quoted, if at all
