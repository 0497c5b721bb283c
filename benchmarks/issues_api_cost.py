"""What a quiet round's `canary issues sync --state` costs in GitHub API requests, as incidents pile up.

    .venv/bin/python benchmarks/issues_api_cost.py [--closed 10,100,1000] [--open 3]

The workflow's `issues` job syncs with the judge's state every round (48 a day), and
GITHUB_TOKEN allows 1,000 requests an hour per repository. Against the local fake GitHub API
(tests/canary/fake_github.py, a real HTTP server): N incidents of earlier months, closed, each with
a comment, plus `--open` open incidents whose suspensions are still active; then one quiet round
(no decision) with the state. Counted: the requests of that round, and what reading every
labelled issue's comments (the sync before issue 17) costs on the same repository.

Prints a table and a `BENCH issues_api_cost ...` line.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "canary"))

from fake_github import REPO, TOKEN, FakeGitHub, fake_github  # noqa: E402

from canary.integrations.github_issues import markers  # noqa: E402
from canary.integrations.github_issues.client import GitHubClient  # noqa: E402
from canary.integrations.github_issues.sync import DEFAULT_LABEL, Standing, find_issues, suspended_in, sync  # noqa: E402
from canary.state.judge_files import load_state, save_state  # noqa: E402
from core import times  # noqa: E402
from core.times import parse_time  # noqa: E402
from judge.suspension.decisions import read_round_decisions  # noqa: E402
from judge.suspension.state import JudgeState, ProviderState, Suspension  # noqa: E402

MODEL = "deepseek/deepseek-chat-v3-0324"
NOW = parse_time("2026-11-29T22:30:00Z", "now")
LONG_AGO = parse_time("2026-10-01T12:00:00Z", "then")
ROUNDS_PER_HOUR = 2  # GITHUB_TOKEN allows 1,000 requests per repository and hour


def seeded(gh: FakeGitHub, closed: int, opened: int, state_path: Path) -> None:
    for i in range(closed):
        issue = gh.add_issue(f"old {i}", markers.issue_marker(MODEL, f"h{i}/fp8", f"r-old{i}/suspend"),
                             [DEFAULT_LABEL], state="closed", updated_at=LONG_AGO)
        gh.add_comment(issue["number"], markers.comment_marker(MODEL, f"h{i}/fp8", f"r-old{i}/restore"),
                       updated_at=LONG_AGO)
    models: dict[str, dict[str, ProviderState]] = {MODEL: {}}
    since = NOW - timedelta(hours=3)
    for i in range(opened):
        tag = f"live{i}/fp8"
        gh.add_issue(f"live {i}", markers.issue_marker(MODEL, tag, f"since-{times.stamp(since)}/suspend"),
                     [DEFAULT_LABEL, "canary: suspended"], updated_at=since)
        models[MODEL][tag] = ProviderState(suspension=Suspension(since, NOW + timedelta(days=1), 1, "enforce", "why"))
    save_state(state_path, JudgeState(models=models))


def quiet_round(closed: int, opened: int) -> tuple[int, int]:
    """(requests of one quiet round now, requests when every labelled issue's comments are read)."""
    doc = read_round_decisions({"schema_version": 1, "round_id": "r-quiet", "mode": "enforce",
                                "now": "2026-11-29T22:30:00Z", "decisions": []})
    with tempfile.TemporaryDirectory() as tmp, fake_github() as gh:
        state_path = Path(tmp) / "state.json"
        seeded(gh, closed, opened, state_path)
        suspended = suspended_in(load_state(state_path), NOW)
        with GitHubClient(REPO, TOKEN, api_url=gh.url) as client:
            gh.requests.clear()
            report = sync(doc, client, standing=Standing(suspended))
            assert report.ok and not report.done, report
            now = len(gh.requests)
            gh.requests.clear()
            find_issues(client, None, DEFAULT_LABEL, needed={(MODEL, f"h{i}/fp8") for i in range(closed)})
            everything = len(gh.requests)
    return now, everything


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--closed", default="10,100,1000", help="closed incidents, comma separated")
    parser.add_argument("--open", type=int, default=3, help="open incidents (active suspensions)")
    args = parser.parse_args()
    rows = []
    print(f"one quiet round of `canary issues sync --state`, {args.open} open incidents:")
    print(f"{'closed':>7} {'requests':>9} {'per hour':>9} {'reading all':>12} {'per hour':>9}"
          "   (GITHUB_TOKEN: 1,000/h)")
    for closed in (int(x) for x in args.closed.split(",")):
        now, everything = quiet_round(closed, args.open)
        rows.append((closed, now, everything))
        print(f"{closed:>7} {now:>9} {now * ROUNDS_PER_HOUR:>9} {everything:>12} {everything * ROUNDS_PER_HOUR:>9}")
    figures = " ".join(f"closed{c}={n} all{c}={e}" for c, n, e in rows)
    print(f"BENCH issues_api_cost open={args.open} {figures}")


if __name__ == "__main__":
    main()
