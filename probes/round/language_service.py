"""One language detector per round, whatever the number of xdist workers.

A lingua detector costs ~350 MB in each process that builds one (docs/design-notes.md
§2.1); four workers each building their own would break the 1 GB budget of a
round. So a round runs one language-judge child process (LanguageProcess), started by the
round owner, serving `judge.replies.language.assess` over a local authenticated socket
(multiprocessing.connection); every prober (the single process, or each xdist worker) is a
RemoteLanguage client. The detector is built on the first `warm_up` call, which a prober sends
at engine start only when it has language cases, so the build overlaps the network waits and a
round without language cases never builds one.
"""

from __future__ import annotations

import secrets
import subprocess
import sys
import threading
from multiprocessing.connection import Client, Connection, Listener
from typing import Any, Protocol

from core.errors import CanaryError
from judge.replies.verdict import Outcome, Verdict


class LanguageServiceError(CanaryError, RuntimeError):
    """The round's language process did not start, or failed to judge a reply."""


class LanguageBackend(Protocol):
    def warm_up(self) -> None: ...
    def assess(self, text: str, language: str) -> Verdict: ...


class LocalLanguage:
    """Judge in this process (imports judge.replies.language only when first needed)."""

    def warm_up(self) -> None:
        from judge.replies import language
        language.warm_up()

    def assess(self, text: str, language: str) -> Verdict:
        from judge.replies import language as judge_language
        return judge_language.assess(text, language)


class LanguageServer:
    """Serves one LocalLanguage over an authenticated local socket; a thread per connection."""

    def __init__(self) -> None:
        self.authkey = secrets.token_bytes(16)
        self._listener = Listener(("127.0.0.1", 0), authkey=self.authkey)
        self._local = LocalLanguage()
        self._closed = False

    @property
    def address(self) -> tuple[str, int]:
        host, port = self._listener.address
        return str(host), int(port)

    def serve_forever(self) -> None:
        while not self._closed:
            try:
                conn = self._listener.accept()
            except Exception:  # closed listener, or a peer that failed authentication
                if self._closed:
                    return
                continue
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: Connection) -> None:
        with conn:
            while True:
                try:
                    op, args = conn.recv()
                except (EOFError, OSError):
                    return
                try:
                    if op == "warm_up":
                        self._local.warm_up()
                        conn.send(("ok", None))
                    else:
                        v = self._local.assess(*args)
                        conn.send(("ok", (v.outcome, str(v.code), v.reason)))
                except Exception as exc:  # a judging bug must surface on the caller, not kill the thread
                    conn.send(("error", f"{type(exc).__name__}: {exc}"))


class LanguageProcess:
    """Parent side: `python -m probes.round.language_service` in a child process, stopped by close().

    A child process, not a thread: building the detector holds the GIL for seconds, and a
    probe process whose event loop stalls would inflate every time-to-first-token it measures.
    The child exits when its stdin closes, so it never outlives the round.
    """

    def __init__(self) -> None:
        self._proc = subprocess.Popen([sys.executable, "-m", "probes.round.language_service"], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, text=True)
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline().split()
        if len(line) != 2:
            self.close()
            raise LanguageServiceError("the language judge process did not start")
        self.address = ("127.0.0.1", int(line[0]))
        self.authkey = bytes.fromhex(line[1])

    def close(self) -> None:
        if self._proc.stdin is not None:
            self._proc.stdin.close()
        try:
            self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()


class RemoteLanguage:
    """Worker side: one connection to the controller's server, used by one thread at a time."""

    def __init__(self, address: tuple[str, int], authkey: bytes) -> None:
        self._address = address
        self._authkey = authkey
        self._conn: Connection | None = None
        self._lock = threading.Lock()

    def _call(self, op: str, *args: Any) -> Any:
        with self._lock:
            if self._conn is None:
                self._conn = Client(self._address, authkey=self._authkey)
            self._conn.send((op, args))
            status, value = self._conn.recv()
        if status != "ok":
            raise LanguageServiceError(f"language judge on the controller failed: {value}")
        return value

    def warm_up(self) -> None:
        self._call("warm_up")

    def assess(self, text: str, language: str) -> Verdict:
        # The code crosses as its value (a str); Verdict keeps it as such, as results.json does.
        outcome, code, reason = self._call("assess", text, language)
        return Verdict(Outcome(outcome), code, reason)


def main() -> None:
    """Child process: print "PORT AUTHKEY_HEX", serve until stdin closes."""
    server = LanguageServer()
    print(server.address[1], server.authkey.hex(), flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()  # returns at EOF: the parent closed our stdin or died


if __name__ == "__main__":
    main()
