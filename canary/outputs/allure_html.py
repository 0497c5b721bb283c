"""Render the Allure 2 HTML report of a round, offline, carrying the trend across rounds through the saved
history folder (docs/workflow.md, the report). Lose that folder and the trend starts again; nothing else
breaks. Allure 2, not 3: its overview honours our categories.json (verified), and its history is plain
files we can cache between runs.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from canary.outputs import report_decisions
from core.errors import CanaryError
from judge.suspension.decisions import RoundDecisions

REPO_ROOT = Path(__file__).resolve().parents[2]
ALLURE_IN_NODE_MODULES = Path("node_modules/allure-commandline/dist/bin/allure")
ALLURE_ENV = "CANARY_ALLURE"  # path to an Allure 2 launcher installed elsewhere
REPORT_NAME = "canary: OpenRouter endpoint probes"
INSTALL_HINT = "run ./dev test once, or `npm ci` in the repository root"
NO_ANALYTICS_ENV = "ALLURE_NO_ANALYTICS"   # read by Allure 2's generator (io.qameta.allure.Constants)
ANALYTICS_HOST = "googletagmanager.com"

# First match wins, and a regex must match the whole message/trace, hence `(?s).*...*`.
# The probe suite maps outcomes to pytest statuses (fail -> failed, transport_error -> broken
# i.e. error, inconclusive / not_applicable -> skipped), so the status separates most of it;
# the message separates a weak probe and a harness bug from the rest.
DEFAULT_CATEGORIES: list[dict[str, object]] = [
    {"name": "Positive control not probed (refusal probe unverified)",
     "matchedStatuses": ["failed", "broken", "skipped"],
     "messageRegex": "(?is).*(control not probed|control unverified|probe unverified).*"},
    {"name": "Probe weak (positive control passed)", "matchedStatuses": ["failed", "broken", "skipped", "passed"],
     "messageRegex": "(?is).*(probe weak|weak probe).*"},
    {"name": "Transport error (freezes the streak)", "matchedStatuses": ["broken"],
     "messageRegex": "(?is).*(transport|timeout|timed out|rate.?limit|connect|HTTP [45][0-9][0-9]|stream).*"},
    {"name": "Quality failure", "matchedStatuses": ["failed"]},
    {"name": "Inconclusive", "matchedStatuses": ["skipped"], "messageRegex": "(?is).*inconclusive.*"},
    {"name": "Harness error (a bug in the canary, not the host)", "matchedStatuses": ["broken"]},
]


class AllureError(CanaryError):
    """The report cannot be rendered; the message says what to do."""


@dataclass(frozen=True, slots=True)
class Build:
    """What the trend axis shows for this round (Allure's executor.json)."""

    name: str = "canary round"
    url: str | None = None
    kind: str = "local"


@dataclass(frozen=True, slots=True)
class Rendered:
    out: Path
    history: Path
    build_order: int
    results: int


def find_allure(root: Path = REPO_ROOT) -> Path:
    """The Allure 2 launcher: $CANARY_ALLURE, else the npm package under node_modules."""
    override = os.environ.get(ALLURE_ENV)
    candidates = [Path(override)] if override else [root / ALLURE_IN_NODE_MODULES, Path.cwd() / ALLURE_IN_NODE_MODULES]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    where = override or str(root / ALLURE_IN_NODE_MODULES)
    raise AllureError(f"Allure 2 is not installed ({where} not found): {INSTALL_HINT}")


def check_java() -> None:
    """Allure 2 is a Java program; say so plainly instead of a launcher's shell error."""
    java = Path(os.environ["JAVA_HOME"], "bin", "java") if os.environ.get("JAVA_HOME") else shutil.which("java")
    if not java or not Path(java).exists():
        raise AllureError("Allure 2 needs Java 17 (no `java` on PATH and no $JAVA_HOME): "
                          "apt-get install openjdk-17-jre-headless, or actions/setup-java in a workflow")


def next_build_order(history: Path) -> int:
    """One more than the newest round in the saved trend (1 when there is none)."""
    try:
        trend = json.loads((history / "history-trend.json").read_text(encoding="utf-8"))
        return max(int(item.get("buildOrder", 0)) for item in trend) + 1
    except (OSError, ValueError, TypeError, AttributeError):
        return 1


def render(results_dirs: Sequence[Path], *, history: Path, out: Path, single_file: bool = False,
           build: Build = Build(), allure: Path | None = None,
           decisions: RoundDecisions | None = None) -> Rendered:
    """Stage results + saved history, generate the report into `out`, save the new history.
    `decisions`: the judge's record of the round (decisions.json), shown as results of their own
    (canary/outputs/report_decisions.py)."""
    launcher = allure or find_allure()
    check_java()
    order = next_build_order(history)
    with tempfile.TemporaryDirectory(prefix="canary-allure-") as tmp:
        staged = Path(tmp, "results")
        count = stage(results_dirs, staged, history=history, build=build, order=order, decisions=decisions)
        _generate(launcher, staged, out)
        if single_file:
            # A single-file report has no history/ folder, so the multi-file report above stays
            # the source of the trend and its index.html is swapped for the self-contained one
            # (it opens from file://; the multi-file page needs an HTTP server).
            single = Path(tmp, "single")
            _generate(launcher, staged, single, "--single-file")
            shutil.copy2(single / "index.html", out / "index.html")
    save_history(out / "history", history)
    return Rendered(out=out, history=history, build_order=order, results=count)


def stage(results_dirs: Sequence[Path], staged: Path, *, history: Path, build: Build, order: int,
          decisions: RoundDecisions | None = None) -> int:
    """Copy the results folders into one with history, categories and executor added."""
    staged.mkdir(parents=True)
    count = 0
    for folder in results_dirs:
        if not folder.is_dir():
            raise AllureError(f"{folder}: no such Allure results folder (run `canary probe` first)")
        for item in sorted(folder.iterdir()):
            if item.is_file() and not (staged / item.name).exists():  # uuid names: folders never collide
                shutil.copy2(item, staged / item.name)
                count += item.name.endswith("-result.json")
    if count == 0:
        raise AllureError(f"no Allure results (*-result.json) in {', '.join(map(str, results_dirs))}: "
                          "run `canary probe` first")
    _merge_environment(results_dirs, staged / "environment.properties")
    if not (staged / "categories.json").exists():
        (staged / "categories.json").write_text(json.dumps(DEFAULT_CATEGORIES, indent=2), encoding="utf-8")
    if decisions is not None:
        count += report_decisions.write(decisions, staged)  # the judge's decisions and their cards
    # Written even over a folder's own executor.json: only the renderer knows the trend, so
    # only it can number the rounds on the trend axis.
    executor = {"name": "canary", "type": build.kind, "buildOrder": order, "buildName": f"{build.name} #{order}",
                "reportName": REPORT_NAME, **({"buildUrl": build.url, "reportUrl": build.url} if build.url else {})}
    (staged / "executor.json").write_text(json.dumps(executor), encoding="utf-8")
    if (history / "history-trend.json").is_file():
        shutil.copytree(history, staged / "history", dirs_exist_ok=True)
    return count


def save_history(new: Path, history: Path) -> None:
    """Replace the saved history with the report's, via a sibling folder then a rename."""
    if not new.is_dir():
        raise AllureError(f"{new}: Allure wrote no history folder; the trend was not saved")
    history.parent.mkdir(parents=True, exist_ok=True)
    fresh = history.with_name(history.name + ".new")
    shutil.rmtree(fresh, ignore_errors=True)
    shutil.copytree(new, fresh)
    shutil.rmtree(history, ignore_errors=True)
    fresh.rename(history)


def _merge_environment(results_dirs: Sequence[Path], target: Path) -> None:
    """Each folder has its own environment.properties; show all their values, not the first."""
    values: dict[str, list[str]] = {}
    for folder in results_dirs:
        source = folder / "environment.properties"
        if source.is_file():
            for line in source.read_text(encoding="utf-8", errors="replace").splitlines():
                key, sep, value = line.partition("=")
                if sep and key.strip() and value.strip() not in values.setdefault(key.strip(), []):
                    values[key.strip()].append(value.strip())
    if values:
        target.write_text("".join(f"{k}={', '.join(v)}\n" for k, v in values.items()), encoding="utf-8")


def _generate(launcher: Path, staged: Path, out: Path, *extra: str) -> None:
    cmd = [str(launcher), "generate", str(staged), "-o", str(out), "--clean", "--name", REPORT_NAME, *extra]
    # Allure's page loads Google Analytics (googletagmanager.com) on every view unless this is set:
    # the published report, like the status page, must make no request beyond its own files.
    env = {**os.environ, NO_ANALYTICS_ENV: "true"}
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False, env=env)
    except OSError as exc:
        raise AllureError(f"could not start Allure ({launcher}): {exc}; {INSTALL_HINT}") from None
    except subprocess.TimeoutExpired:
        raise AllureError("Allure did not finish within 300 s") from None
    if done.returncode != 0 or not (out / "index.html").is_file():
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-8:])
        raise AllureError(f"allure generate failed (exit {done.returncode}):\n{tail}")
    if ANALYTICS_HOST in (out / "index.html").read_text(encoding="utf-8", errors="replace"):
        raise AllureError(f"{out / 'index.html'} would load analytics from {ANALYTICS_HOST} although "
                          f"{NO_ANALYTICS_ENV} was set: this Allure version ignores it; pin allure-commandline 2.46")
