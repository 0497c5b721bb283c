"""msgspec or pydantic v2 for the file declarations (core/schema.py): import time and a round's start-up.

Issue 21 item 3 asked to measure both before choosing. Three figures per library:

1. import: `python -X importtime -c 'import X'` (the cumulative time of X, median of --runs) and
   the wall time of `python -c 'import X'` (median of --runs) beside a bare `python -c pass`;
2. the declaration read: in a fresh process, canary.yaml read through core/config.py's very
   dataclasses, by msgspec (`load_config`, what canary does) and by pydantic
   (`TypeAdapter(ConfigFile).validate_python`, what pydantic would do with the same
   declaration), the whole process timed (that process imports msgspec too, with core/config.py:
   the difference is pydantic's own cost);
3. a round's start-up: `canary round` against the bundled simulator on a scenario of one instant
   endpoint (so the round is nearly all start-up: the command, pytest and its workers, the
   simulator, discovery, judge, summary), median of --rounds rounds, as built (msgspec) and with
   every Python process of the round also importing pydantic and reading canary.yaml through
   it (a `sitecustomize` on PYTHONPATH): what moving to pydantic would add.

    .venv/bin/python benchmarks/schema_libraries.py [--runs 10] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._support import MODEL, PYTHON, ROOT, endpoint, scenario, write_yaml  # noqa: E402

CANARY = Path(PYTHON).parent / "canary"
READ_CONFIG = {
    "msgspec": "from core.config import load_config; load_config('canary.yaml')",
    "pydantic": ("import yaml, pydantic; from core.config import ConfigFile; "
                 "pydantic.TypeAdapter(ConfigFile).validate_python(yaml.safe_load(open('canary.yaml')))"),
}
# Every Python process of the round loads pydantic and reads canary.yaml with it, as it would if
# core/config.py used pydantic (each process reads the configuration or a scenario at start-up).
SITECUSTOMIZE = textwrap.dedent(f"""
    import os, sys
    if os.environ.get("SCHEMA_BENCH_PYDANTIC"):
        sys.path.insert(0, {str(ROOT)!r})
        import yaml, pydantic
        from core.config import ConfigFile
        pydantic.TypeAdapter(ConfigFile).validate_python(yaml.safe_load(open({str(ROOT / 'canary.yaml')!r})))
        with open(os.environ["SCHEMA_BENCH_PYDANTIC"], "a") as log:
            log.write(" ".join(sys.argv[:2]) + "\\n")
""")


def wall(code: str) -> float:
    start = time.perf_counter()
    subprocess.run([PYTHON, "-c", code], cwd=ROOT, check=True)
    return time.perf_counter() - start


def median_ms(code: str, runs: int) -> float:
    return statistics.median(wall(code) for _ in range(runs)) * 1000


def importtime_ms(module: str, runs: int) -> float:
    """The cumulative import time -X importtime reports for `module`, median of `runs`."""
    found = []
    for _ in range(runs):
        err = subprocess.run([PYTHON, "-X", "importtime", "-c", f"import {module}"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stderr
        line = re.search(rf"^import time:\s+\d+ \|\s+(\d+) \| {re.escape(module)}$", err, re.M)
        assert line, f"no importtime line for {module}"
        found.append(int(line.group(1)) / 1000)
    return statistics.median(found)


def round_seconds(work: Path, env: dict[str, str]) -> float:
    reports = Path(tempfile.mkdtemp(dir=work))
    start = time.perf_counter()
    subprocess.run([str(CANARY), "round", "--scenario", str(work / "instant.yaml"), "--reports", str(reports),
                    "--no-report", "--config", str(work / "canary.yaml")], cwd=ROOT, env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10, help="processes per import figure (median)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per start-up figure (median)")
    args = parser.parse_args()

    bare = median_ms("pass", args.runs)
    print(f"bare `python -c pass`: {bare:.0f} ms (median of {args.runs})")
    bench = []
    for module in ("msgspec", "pydantic", "pydantic.dataclasses"):
        cumulative = importtime_ms(module, args.runs)
        process = median_ms(f"import {module}", args.runs)
        print(f"import {module}: -X importtime {cumulative:.1f} ms; `python -c 'import {module}'` {process:.0f} ms "
              f"(+{process - bare:.0f} ms)")
        bench.append(f"{module.replace('.', '_')}_importtime_ms={cumulative:.1f} {module.replace('.', '_')}"
                     f"_process_ms={process:.0f}")

    read = {library: median_ms(code, args.runs) for library, code in READ_CONFIG.items()}
    for library, ms in read.items():
        print(f"canary.yaml read through core/config.py's declaration by {library}: {ms:.0f} ms a process")
        bench.append(f"read_{library}_ms={ms:.0f}")
    print(f"  pydantic adds {read['pydantic'] - read['msgspec']:+.0f} ms to every process that reads a file")

    with tempfile.TemporaryDirectory(prefix="schema-bench-") as tmp:
        work = Path(tmp)
        write_yaml(work / "instant.yaml", scenario("instant", [endpoint("aurora/fp8", ttft_ms=0)]))
        write_yaml(work / "canary.yaml", {"models": [MODEL]})
        (work / "site").mkdir()
        (work / "site" / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
        env = {**os.environ, "PYTHONPATH": str(work / "site")}
        env.pop("OPENROUTER_API_KEY", None)
        log = work / "processes.log"
        figures = {}
        for library, extra in (("msgspec", {}), ("pydantic", {"SCHEMA_BENCH_PYDANTIC": str(log)})):
            times = [round_seconds(work, {**env, **extra}) for _ in range(args.rounds)]
            figures[library] = statistics.median(times)
            print(f"`canary round` start-up ({library}): {figures[library]:.2f} s "
                  f"(median of {args.rounds}: {', '.join(f'{t:.2f}' for t in times)})")
        processes = len(log.read_text(encoding="utf-8").splitlines()) // args.rounds
        print(f"  pydantic adds {figures['pydantic'] - figures['msgspec']:+.2f} s a round "
              f"({processes} Python processes a round)")
        bench.append(f"round_msgspec_s={figures['msgspec']:.2f} round_pydantic_s={figures['pydantic']:.2f} "
                     f"processes={processes}")
    print("BENCH schema_libraries " + " ".join(bench))
    return 0


if __name__ == "__main__":
    sys.exit(main())
