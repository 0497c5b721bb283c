"""What notifications and incident issues cost: install size, start-up, delivery, API requests.

    .venv/bin/python benchmarks/notify_cost.py [--messages 20] [--endpoints 30]

Figures:
- the installed size of Apprise and the packages it brought (dist-info RECORD sizes);
- `import apprise` in a fresh interpreter, and whether the `canary` CLI imports it at start-up
  (it must not: only a delivery does);
- mean time to deliver one round's message to a local JSON receiver (Apprise's overhead);
- `canary issues sync` against the local fake GitHub API: a round that suspends N endpoints
  (requests, seconds), the same round again (requests, writes: must be 0), and the round that
  restores them all.

Prints a table and a `BENCH notify_cost ...` line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "canary"))

from fake_github import REPO, TOKEN, fake_github  # noqa: E402
from notify_receivers import receiving  # noqa: E402

from canary.integrations.github_issues.client import GitHubClient  # noqa: E402
from canary.integrations.github_issues.sync import sync  # noqa: E402
from canary.integrations.notifications.send import send  # noqa: E402
from judge.suspension.decisions import RoundDecisions, read_round_decisions  # noqa: E402

# Apprise's own dependency tree as pip installs it next to canary's (certifi, idna and PyYAML were
# already there through httpx and the simulator).
BROUGHT = ["apprise", "requests", "requests-oauthlib", "oauthlib", "markdown", "click", "urllib3",
           "charset-normalizer"]


def installed_mb(names: list[str]) -> dict[str, float]:
    out = {}
    for name in names:
        try:
            files = metadata.files(name) or []
        except metadata.PackageNotFoundError:
            continue
        out[name] = sum((f.size or 0) for f in files) / 1e6
    return out


def python_seconds(code: str, runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def round_doc(round_id: str, action: str, endpoints: int) -> RoundDecisions:
    return read_round_decisions({"round_id": round_id, "mode": "enforce", "now": "2026-11-29T22:30:00Z",
            "decisions": [{"model": "m/x", "provider": f"host{i}/fp8", "action": action, "rule": "failed_streak",
                           "reason": "2 failed rounds in a row", "until": "2026-11-30T22:30:00Z", "rung": 1,
                           "evidence": [{"contract": "language", "outcome": "fail", "reason": "leading garbage"}]}
                          for i in range(endpoints)]})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=20)
    parser.add_argument("--endpoints", type=int, default=30)
    args = parser.parse_args()

    sizes = installed_mb(BROUGHT)
    bare = python_seconds("pass")
    with_apprise = python_seconds("import apprise")
    cli_loads = subprocess.run(
        [sys.executable, "-c",
         "import sys, canary.cli.main; print('apprise' in sys.modules)"],
        capture_output=True, text=True, check=True, cwd=ROOT).stdout.strip() == "True"

    doc = round_doc("r-1", "suspend", 3)
    with receiving() as hook, tempfile.TemporaryDirectory() as tmp:
        send(doc, [f"json://127.0.0.1:{hook.port}/"], None, echo=lambda _: None)   # warm: first import
        start = time.perf_counter()
        for _ in range(args.messages):
            assert send(doc, [f"json://127.0.0.1:{hook.port}/"], Path(tmp) / "a.jsonl", echo=lambda _: None) == []
        per_message_ms = (time.perf_counter() - start) / args.messages * 1000

    rows = []
    with fake_github() as gh:
        client = GitHubClient(REPO, TOKEN, api_url=gh.url)
        for label, round_id, action in (("open", "r-2", "suspend"), ("rerun", "r-2", "suspend"),
                                        ("close", "r-3", "restore")):
            before = len(gh.requests)
            writes_before = sum(1 for m, _ in gh.requests if m != "GET")
            start = time.perf_counter()
            report = sync(round_doc(round_id, action, args.endpoints), client)
            seconds = time.perf_counter() - start
            assert report.ok, report.failed
            rows.append((label, len(gh.requests) - before,
                         sum(1 for m, _ in gh.requests if m != "GET") - writes_before, seconds))
        client.close()

    print(f"installed by Apprise: {sum(sizes.values()):.1f} MB "
          f"({', '.join(f'{k} {v:.1f}' for k, v in sorted(sizes.items(), key=lambda kv: -kv[1]))})")
    print(f"python start {bare * 1000:.0f} ms; with `import apprise` {with_apprise * 1000:.0f} ms "
          f"(+{(with_apprise - bare) * 1000:.0f} ms); the canary CLI imports Apprise at start-up: {cli_loads}")
    print(f"one round's message to a local JSON receiver: {per_message_ms:.1f} ms (mean of {args.messages})")
    print(f"canary issues sync, {args.endpoints} endpoints:")
    print("  round    requests  writes  seconds")
    for label, requests, writes, seconds in rows:
        print(f"  {label:<8} {requests:>8}  {writes:>6}  {seconds:>7.2f}")
    print(f"BENCH notify_cost apprise_mb={sum(sizes.values()):.1f} import_ms={(with_apprise - bare) * 1000:.0f} "
          f"cli_imports_apprise={int(cli_loads)} message_ms={per_message_ms:.1f} "
          f"open_requests={rows[0][1]} rerun_requests={rows[1][1]} rerun_writes={rows[1][2]} "
          f"close_requests={rows[2][1]}")
    json.dumps(rows)


if __name__ == "__main__":
    main()
