"""Build the static site into a folder (I/O): read the history and the layers, write every file
atomically. The files and why ECharts is copied in from npm: docs/status-page.md."""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from canary.history.query import History
from canary.outputs.site import collect as collecting
from canary.outputs.site.badges import badge_svg
from canary.outputs.site.feeds import atom_feed, status_document
from canary.outputs.site.page import asset, render_index
from canary.outputs.site.status import encode as encode_status
from core.config import Config
from core.errors import CanaryError
from core.store import atomic_write_bytes

HISTORY_DAYS = 365        # the daily TTFT series reaches back a year; strips and rates need 30 days
ECHARTS_ENV = "CANARY_ECHARTS"
ECHARTS_IN_NODE_MODULES = Path("node_modules/echarts/dist/echarts.min.js")
APP_ASSETS = ("app.js", "style.css")


class SiteError(CanaryError):
    """The site cannot be built; the message says what to do."""


@dataclass(frozen=True, slots=True)
class Built:
    out: Path
    models: int
    endpoints: int
    files: int
    newest_round: str | None


def build_site(out: Path, history: History, layers: collecting.Layers, config: Config, *,
               stale_after_minutes: float | None = None, allure: Path | None = None, echarts: Path | None = None,
               base_url: str = "") -> Built:
    """Write the site into `out` (created if needed; files of an earlier build are replaced): the page of
    `history` for config's models and thresholds (`stale_after_minutes`: config.site's, unless given)."""
    chart_lib = find_echarts(echarts)
    if allure is not None and not (allure / "index.html").is_file():
        raise SiteError(f"{allure}: no index.html there; pass the folder `canary report --out` wrote")
    links = {"allure": "allure/index.html" if allure is not None or (out / "allure" / "index.html").is_file() else None,
             "status": "status.json", "schema": "status.schema.json", "atom": "decisions.atom"}
    stale = config.site.stale_after_minutes if stale_after_minutes is None else stale_after_minutes
    page = collecting.collect(history, layers, models=config.models, ttft_threshold_s=config.probe.ttft_seconds,
                              stale_after_minutes=stale, links=links)
    feed_decisions = page.pop("decisions")
    page["echarts_version"] = _echarts_version(chart_lib)
    files: dict[str, bytes] = {
        "index.html": render_index(page).encode("utf-8"),
        "status.json": encode_status(status_document(page)),
        "status.schema.json": asset("status.schema.json"),   # generated from status.py's declaration
        "decisions.atom": atom_feed(feed_decisions, updated=page["generated_at"], base_url=base_url),
        "assets/echarts.min.js": chart_lib.read_bytes(),
    }
    for name in APP_ASSETS:
        files[f"assets/{name}"] = asset(name)
    for extra in ("LICENSE", "NOTICE"):
        licence = chart_lib.parents[1] / extra
        if licence.is_file():
            files[f"assets/echarts-{extra}.txt"] = licence.read_bytes()
    for m in page["models"]:
        files[m["badge"]] = badge_svg(m["badge_message"], m["badge_colour"]).encode("utf-8")
    for name, data in files.items():
        atomic_write_bytes(Path(out) / name, data)
        (Path(out) / name).chmod(0o644)   # a web site: readable by whoever serves it
    if allure is not None:
        _copy_tree(allure, Path(out) / "allure")
    newest = page["newest_round"]
    return Built(Path(out), len(page["models"]), sum(len(m["endpoints"]) for m in page["models"]), len(files),
                 newest["at"] if newest else None)


def find_echarts(explicit: Path | None = None) -> Path:
    """echarts.min.js: --echarts, $CANARY_ECHARTS, or node_modules/ here or next to the canary package."""
    candidates = [explicit] if explicit is not None else [
        Path(p) for p in (os.environ.get(ECHARTS_ENV),) if p] + [
        Path.cwd() / ECHARTS_IN_NODE_MODULES, Path(__file__).resolve().parents[3] / ECHARTS_IN_NODE_MODULES]
    for path in candidates:
        if path.is_file():
            return path
    where = ", ".join(str(c) for c in candidates)
    raise SiteError(f"ECharts not found (looked at {where}): run `npm ci` in the repository (./dev test and "
                    f"./dev round do), or pass --echarts PATH/echarts.min.js")


def _echarts_version(lib: Path) -> str | None:
    try:
        data: Any = json.loads((lib.parents[1] / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    version = data.get("version") if isinstance(data, dict) else None
    return version if isinstance(version, str) else None


def _copy_tree(source: Path, target: Path) -> None:
    """Copy the Allure report in, replacing an earlier copy (through a temporary folder)."""
    temporary = target.with_name(target.name + ".tmp")
    shutil.rmtree(temporary, ignore_errors=True)
    shutil.copytree(source, temporary)
    shutil.rmtree(target, ignore_errors=True)
    temporary.rename(target)
