"""The backend's production sampler (provider_ignore/production.py, issue 39 item 6): CPU and memory
per sampled reply, without and with the language extra, and a record's size.

    .venv/bin/python benchmarks/production_library.py [--replies 2000]

Each mode runs in a fresh interpreter, so its memory is the library's alone: the resident set
(VmRSS) before importing the library, after importing it, and after checking the replies (the
word lists of leading.py load on first use; with the extra, lingua's detector is built once,
its build time reported apart). Replies are the simulator's clean text banks in the 17 languages
(2-6 sentences), half of them streamed in ~12-character deltas, every one with usage and a cap;
CPU is `time.process_time` over building each Reply and `Exporter.observe`, every reply sampled. A record's size is the
compact JSON of one 30-minute window at 100,000 replies a day sampled at 5 % (~104 sampled
replies over 9 providers), and of a busy window (10 models x 9 providers, every reply sampled).

    BENCH production_library mode=… rss_start_mb=… import_mb=… replies_mb=… us_per_reply=… build_s=…
    BENCH production_record day100k_bytes=… busy_bytes=… busy_cells=…
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _support import bench_line  # noqa: E402

PROVIDERS = ("Aurora", "Borealis", "Cinder", "Dune", "Ember", "Fjord", "Glacier", "Harbor", "Iris")


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def replies(n: int, models: int = 10, seed: int = 3) -> list[dict[str, object]]:
    """Each reply's fields (conversation id, Reply's fields, language): clean bank text, half streamed."""
    from core.vocabulary import LANGUAGES
    from simulator.banks import all_banks

    banks, rng, out = all_banks(), random.Random(seed), []
    for i in range(n):
        language = LANGUAGES[i % len(LANGUAGES)]
        text = " ".join(rng.sample(list(banks[language].sentences), rng.randint(2, 6)))
        deltas = tuple(text[j:j + 12] for j in range(0, len(text), 12)) if i % 2 else None
        out.append({"conversation": f"conversation-{i}", "language": language, "model": f"m/model-{i % models}",
                    "provider": PROVIDERS[i % len(PROVIDERS)], "text": text, "finish_reason": "stop",
                    "deltas": deltas, "completion_tokens": len(text) // 3, "max_tokens": 400})
    return out


def observe_all(exporter: Any, corpus: list[dict[str, object]], now: Any) -> None:
    from provider_ignore.production import Reply

    for fields in corpus:
        reply = {k: v for k, v in fields.items() if k not in ("conversation", "language")}
        exporter.observe(fields["conversation"], Reply(**reply), now=now, language=fields["language"])


def measure(mode: str, n: int) -> dict[str, float]:
    """One mode in this (fresh) interpreter."""
    from datetime import UTC, datetime

    corpus = replies(n)
    start = rss_mb()
    from provider_ignore.production import Exporter
    imported = rss_mb()
    exporter = Exporter("bench", sample_rate=1.0, per_conversation=n, check_language=mode == "language")
    now = datetime(2026, 12, 7, 10, 0, tzinfo=UTC)
    build = time.perf_counter()
    if mode == "language":
        from judge.replies.language import warm_up
        warm_up()
    build_s = time.perf_counter() - build
    observe_all(exporter, corpus[:1], now)  # first use: the word lists load
    began = time.process_time()
    observe_all(exporter, corpus[1:], now)
    cpu = time.process_time() - began
    return {"rss_start_mb": start, "import_mb": imported - start, "replies_mb": rss_mb() - imported,
            "us_per_reply": cpu / (n - 1) * 1e6, "build_s": build_s}


def record_sizes() -> dict[str, int]:
    from datetime import UTC, datetime, timedelta

    from core.production import record_json
    from provider_ignore.production import Exporter

    now = datetime(2026, 12, 7, 10, 0, tzinfo=UTC)
    sizes = {}
    for name, count, models in (("day100k", 104, 1), ("busy", 5000, 10)):
        exporter = Exporter("bench", sample_rate=1.0)   # every reply given is a sampled one
        observe_all(exporter, replies(count, models), now)
        [record] = exporter.records(now=now + timedelta(minutes=30))
        sizes[f"{name}_bytes"] = len(record_json(record))
        sizes[f"{name}_cells"] = len(record.counts)
    return sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--replies", type=int, default=2000)
    parser.add_argument("--mode", choices=("plain", "language"), help=argparse.SUPPRESS)  # one fresh interpreter's
    args = parser.parse_args()
    if args.mode:
        print(json.dumps(measure(args.mode, args.replies)))
        return
    for mode in ("plain", "language"):
        done = subprocess.run([sys.executable, __file__, "--mode", mode, "--replies", str(args.replies)],
                              capture_output=True, text=True, check=True)
        figures = json.loads(done.stdout)
        print(f"{mode:8}: {figures['us_per_reply']:.0f} us CPU per sampled reply; library import "
              f"+{figures['import_mb']:.1f} MB, after {args.replies} replies +{figures['replies_mb']:.1f} MB more"
              + (f" (detector built in {figures['build_s']:.1f} s)" if mode == "language" else ""))
        print(bench_line("production_library", mode=mode, **figures))
    sizes = record_sizes()
    print(f"a record: {sizes['day100k_bytes']} bytes for a window at 100,000 replies a day sampled at 5 % "
          f"({sizes['day100k_cells']} cells); {sizes['busy_bytes']} bytes for 5,000 sampled replies of 10 models "
          f"({sizes['busy_cells']} cells)")
    print(bench_line("production_record", **sizes))


if __name__ == "__main__":
    main()
