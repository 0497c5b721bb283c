"""A real headless browser for the status page tests: the installed Chromium, driven by playwright.

playwright launches Debian's `chromium` through `executable_path` (no browser is downloaded:
`playwright install` is never run), loads a page at a viewport, collects what the page reported
(console errors, uncaught exceptions, failed loads) and every URL it asked for, asks its DOM and
takes screenshots. `decode_png()` reads a screenshot back (8-bit RGB/RGBA PNG, as Chromium writes)
so a test can look at its pixels.
"""

from __future__ import annotations

import os
import shutil
import struct
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import ConsoleMessage, Playwright, Request, sync_playwright

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
# As root in a container Chromium's sandbox cannot start; QUIC and background traffic stay off so
# the page's own requests are all there is.
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking",
        "--disable-component-update", "--hide-scrollbars"]
READY = "document.readyState === 'complete'"   # a page is ready when loaded, unless the test says otherwise


def find_browser() -> str | None:
    """$CANARY_CHROMIUM, or the first Chromium on PATH; None when there is none."""
    explicit = os.environ.get("CANARY_CHROMIUM")
    if explicit:
        return explicit if Path(explicit).exists() else None
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


@dataclass
class Visit:
    """What one page load left: problems reported by the page, DOM facts, and a screenshot."""

    console: list[str] = field(default_factory=list)       # console.error / assert (CSP violations included)
    exceptions: list[str] = field(default_factory=list)    # uncaught exceptions
    failed: list[str] = field(default_factory=list)        # requests that failed to load
    facts: Any = None
    png: bytes = b""
    clips: dict[str, bytes] = field(default_factory=dict)   # name -> PNG of that rectangle
    requests: list[str] = field(default_factory=list)       # every URL the page asked for, in order

    def left_the_page(self, page: str) -> list[str]:
        """Requests to anything but the page's own files (file:// beside it, or its http origin) and data:."""
        base = page.rsplit("/", 1)[0] + "/"
        return [u for u in self.requests if not (u.startswith(base) or u.startswith(("data:", "blob:", "about:")))]

    @property
    def errors(self) -> list[str]:
        return ([f"console: {c}" for c in self.console] + [f"exception: {e}" for e in self.exceptions]
                + [f"failed load: {f}" for f in self.failed])


class Browser:
    """One headless Chromium launched by playwright (a context manager)."""

    def __init__(self, executable: str, timeout: float = 60.0) -> None:
        self.timeout_ms = timeout * 1000
        self._playwright: Playwright = sync_playwright().start()
        try:
            self._browser = self._playwright.chromium.launch(executable_path=executable, args=ARGS,
                                                             timeout=self.timeout_ms)
        except BaseException:
            self._playwright.stop()
            raise

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        try:
            self._browser.close()
        finally:
            self._playwright.stop()

    def visit(self, url: str, *, width: int, height: int, mobile: bool = False, ready: str = "",
              facts: str = "null", full_page: bool = True, settle_s: float = 0.5, clips: str = "[]") -> Visit:
        """Load `url` at this viewport, wait until the JS expression `ready` is true, evaluate
        `facts` (a JS expression, returned by value) and take a screenshot; `clips` (a JS expression
        giving [{name, x, y, width, height}] in page pixels) names rectangles shot on their own."""
        visit = Visit()
        context = self._browser.new_context(viewport={"width": width, "height": height}, device_scale_factor=1,
                                            is_mobile=mobile, has_touch=mobile)
        try:
            page = context.new_page()
            page.set_default_timeout(self.timeout_ms)

            def on_console(message: ConsoleMessage) -> None:
                if message.type in ("error", "assert"):
                    visit.console.append(f"{message.type}: {message.text} {message.location.get('url', '')}")

            def on_failed(request: Request) -> None:
                visit.failed.append(f"{request.url}: {request.failure}")

            page.on("console", on_console)
            page.on("pageerror", lambda error: visit.exceptions.append(str(error)))
            page.on("request", lambda request: visit.requests.append(request.url))
            page.on("requestfailed", on_failed)
            page.goto(url)
            page.wait_for_function(f"!!({ready or READY})", polling=100)
            if full_page:   # the whole page in the viewport: the charts laid out at their real size
                tall = int(page.evaluate("document.documentElement.scrollHeight"))
                page.set_viewport_size({"width": width, "height": max(height, tall)})
            page.wait_for_timeout(settle_s * 1000)   # the page's resize handler redraws the charts (100 ms debounce)
            visit.facts = page.evaluate(facts)
            visit.png = page.screenshot(type="png")
            for r in page.evaluate(clips) or []:
                clip = {"x": r["x"], "y": r["y"], "width": max(1, r["width"]), "height": max(1, r["height"])}
                visit.clips[r["name"]] = page.screenshot(type="png", clip=clip)
        finally:
            context.close()
        return visit


@dataclass(frozen=True)
class Image:
    width: int
    height: int
    pixels: list[bytes]        # one row of RGB bytes each

    def pixel(self, x: int, y: int) -> tuple[int, int, int]:
        row = self.pixels[y]
        return row[3 * x], row[3 * x + 1], row[3 * x + 2]

    def region_colours(self, x0: int, y0: int, x1: int, y1: int, step: int = 1) -> set[tuple[int, int, int]]:
        """The distinct colours of a rectangle (every `step`-th pixel)."""
        out = set()
        for y in range(max(0, y0), min(self.height, y1), step):
            for x in range(max(0, x0), min(self.width, x1), step):
                out.add(self.pixel(x, y))
        return out


def decode_png(data: bytes) -> Image:
    """An 8-bit, non-interlaced RGB or RGBA PNG as RGB rows (what Chromium's screenshots are)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat = 8, b""
    width = height = channels = 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                raise ValueError(f"unsupported PNG (depth {depth}, colour type {colour}, interlace {interlace})")
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    raw = zlib.decompress(idat)
    stride = width * channels
    rows: list[bytes] = []
    previous = bytearray(stride)
    at = 0
    for _ in range(height):
        kind, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
        at += 1 + stride
        _unfilter(kind, line, previous, channels)
        rows.append(bytes(line) if channels == 3 else bytes(b for i, b in enumerate(line) if i % 4 != 3))
        previous = line
    return Image(width, height, rows)


def _unfilter(kind: int, line: bytearray, previous: bytearray, bpp: int) -> None:
    if kind == 0:
        return
    for i in range(len(line)):
        left = line[i - bpp] if i >= bpp else 0
        up = previous[i]
        if kind == 1:
            line[i] = (line[i] + left) & 0xFF
        elif kind == 2:
            line[i] = (line[i] + up) & 0xFF
        elif kind == 3:
            line[i] = (line[i] + (left + up) // 2) & 0xFF
        elif kind == 4:
            corner = previous[i - bpp] if i >= bpp else 0
            p = left + up - corner
            pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
            line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
        else:
            raise ValueError(f"bad PNG filter {kind}")
