"""A real headless browser for the status page tests: Chromium driven over the DevTools protocol.

No npm package and no port: Chromium's `--remote-debugging-pipe` speaks the DevTools protocol
as NUL-terminated JSON on file descriptors 3 (commands in) and 4 (answers and events out), so a
page can be loaded, its console errors, uncaught exceptions and log errors (CSP violations,
failed loads) collected, its DOM asked, and a screenshot taken, with the standard library only.
`decode_png()` reads the screenshot back (8-bit RGB/RGBA PNG, as Chromium writes) so a test can
look at its pixels.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import queue
import shutil
import struct
import subprocess
import tempfile
import threading
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--disable-extensions", "--mute-audio", "--hide-scrollbars",
         "--remote-debugging-pipe")


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

    console: list[dict[str, Any]] = field(default_factory=list)       # console.error / assert / warning
    exceptions: list[dict[str, Any]] = field(default_factory=list)    # uncaught exceptions
    log_errors: list[dict[str, Any]] = field(default_factory=list)    # CSP, failed loads, ... (level error)
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
        out = [f"console.{c.get('type')}: {_args(c)}" for c in self.console if c.get("type") in ("error", "assert")]
        out += [f"exception: {e.get('exceptionDetails', {}).get('exception', {}).get('description') or e}"
                for e in self.exceptions]
        entries = [e.get("entry", {}) for e in self.log_errors]
        out += [f"log {entry.get('source')}: {entry.get('text')} {entry.get('url', '')}" for entry in entries]
        return out


class Browser:
    """One headless Chromium process (a context manager)."""

    def __init__(self, executable: str, timeout: float = 60.0) -> None:
        self.executable, self.timeout = executable, timeout
        self._profile = tempfile.mkdtemp(prefix="canary-chromium-")
        cmd_r, self._cmd_w = os.pipe()
        self._out_r, out_w = os.pipe()

        def onto_3_and_4() -> None:  # in the child, before exec: the pipe ends where Chromium expects them
            high_r, high_w = fcntl.fcntl(cmd_r, fcntl.F_DUPFD, 10), fcntl.fcntl(out_w, fcntl.F_DUPFD, 10)
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        # close_fds=False: fds 3 and 4 must survive into Chromium; every other descriptor Python
        # opened is non-inheritable and closes at exec anyway.
        self.process = subprocess.Popen(
            [executable, *FLAGS, f"--user-data-dir={self._profile}", "about:blank"], preexec_fn=onto_3_and_4,
            close_fds=False, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        os.close(cmd_r)
        os.close(out_w)
        self._next_id = 0
        self._answers: dict[int, queue.Queue[dict[str, Any]]] = {}
        self._events: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._stderr: list[bytes] = []
        self._drainer = threading.Thread(target=self._drain, daemon=True)
        self._drainer.start()

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        try:
            self.call("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        for fd in (self._cmd_w,):
            try:
                os.close(fd)
            except OSError:
                pass
        self._drainer.join(timeout=5)  # stderr's end of file, now that Chromium has exited
        if self.process.stderr is not None and not self._drainer.is_alive():
            self.process.stderr.close()
        shutil.rmtree(self._profile, ignore_errors=True)

    # -- the protocol --------------------------------------------------------------------------

    def call(self, method: str, params: dict[str, Any] | None = None, session: str | None = None,
             timeout: float | None = None) -> dict[str, Any]:
        with self._lock:
            self._next_id += 1
            ident = self._next_id
            box: queue.Queue[dict[str, Any]] = queue.Queue()
            self._answers[ident] = box
        message: dict[str, Any] = {"id": ident, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._cmd_w, json.dumps(message).encode() + b"\0")
        try:
            answer = box.get(timeout=timeout or self.timeout)
        except queue.Empty:
            raise TimeoutError(f"Chromium did not answer {method} within {timeout or self.timeout} s; "
                               f"stderr: {b''.join(self._stderr)[-2000:]!r}") from None
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        return answer.get("result", {})

    def events(self, session: str) -> list[dict[str, Any]]:
        with self._lock:
            return [e for e in self._events if e.get("sessionId") == session]

    def _read(self) -> None:
        buffer = b""
        while True:
            chunk = os.read(self._out_r, 1 << 16)
            if not chunk:
                return
            buffer += chunk
            while b"\0" in buffer:
                raw, buffer = buffer.split(b"\0", 1)
                message = json.loads(raw)
                with self._lock:
                    box = self._answers.pop(message["id"], None) if "id" in message else None
                    if box is None:
                        self._events.append(message)
                if box is not None:
                    box.put(message)

    def _drain(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self._stderr.append(line)
            del self._stderr[:-200]

    # -- one page ------------------------------------------------------------------------------

    def visit(self, url: str, *, width: int, height: int, mobile: bool = False, ready: str = "",
              facts: str = "null", full_page: bool = True, settle_s: float = 0.5, clips: str = "[]") -> Visit:
        """Load `url` at this viewport, wait until the JS expression `ready` is true, evaluate
        `facts` (a JS expression, returned by value) and take a screenshot; `clips` (a JS expression
        giving [{name, x, y, width, height}] in page pixels) names rectangles shot on their own."""
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime", "Log", "Page", "Network"):
            self.call(f"{domain}.enable", session=session)
        metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile}
        self.call("Emulation.setDeviceMetricsOverride", metrics, session=session)
        self.call("Page.navigate", {"url": url}, session=session)
        deadline = time.monotonic() + self.timeout
        expression = ready or "document.readyState === 'complete'"
        while True:
            value = self.call("Runtime.evaluate", {"expression": f"!!({expression})", "returnByValue": True},
                              session=session).get("result", {}).get("value")
            if value is True:
                break
            if time.monotonic() > deadline:
                raise TimeoutError(f"{url}: not ready ({expression}) within {self.timeout} s")
            time.sleep(0.1)
        if full_page:
            tall = self.call("Runtime.evaluate", {"expression": "document.documentElement.scrollHeight",
                                                  "returnByValue": True}, session=session)["result"]["value"]
            self.call("Emulation.setDeviceMetricsOverride", {**metrics, "height": int(tall)}, session=session)
        time.sleep(settle_s)  # the page's resize handler redraws the charts (100 ms debounce)
        value = self.call("Runtime.evaluate", {"expression": facts, "returnByValue": True},
                          session=session).get("result", {}).get("value")
        shot = self.call("Page.captureScreenshot", {"format": "png"}, session=session)["data"]
        visit = Visit(facts=value, png=base64.b64decode(shot))
        rects = self.call("Runtime.evaluate", {"expression": clips, "returnByValue": True},
                          session=session).get("result", {}).get("value") or []
        for r in rects:
            clip = {"x": r["x"], "y": r["y"], "width": max(1, r["width"]), "height": max(1, r["height"]), "scale": 1}
            data = self.call("Page.captureScreenshot", {"format": "png", "clip": clip}, session=session)["data"]
            visit.clips[r["name"]] = base64.b64decode(data)
        for event in self.events(session):
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert", "warning"):
                visit.console.append(params)
            elif method == "Runtime.exceptionThrown":
                visit.exceptions.append(params)
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                visit.log_errors.append(params)
            elif method == "Network.requestWillBeSent":
                visit.requests.append(str(params.get("request", {}).get("url", "")))
        self.call("Target.closeTarget", {"targetId": target})
        return visit


def _args(console: dict[str, Any]) -> str:
    return " ".join(str(a.get("value", a.get("description", ""))) for a in console.get("args", []))


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
