"""Headless Chromium driven over the DevTools protocol through a pipe (`--remote-debugging-pipe`:
JSON messages ending in NUL on file descriptors 3 and 4), so the tests need neither a
WebSocket client nor a browser download: Debian's `chromium` package is enough."""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import os
import queue
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

TIMEOUT_S = 30.0


def chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("browser test skipped: no `chromium` on PATH (run `make browser-tools`, "
                "which installs Debian's chromium package)")


class Browser:
    """One headless Chromium with one page; `call` sends a command to the page and waits for
    its answer, `wait_for` waits for an event."""

    def __init__(self, binary: str, profile: Path, size: tuple[int, int] = (1100, 900)) -> None:
        to_chrome_r, self._out = os.pipe()
        self._in, from_chrome_w = os.pipe()

        def plumb() -> None:  # the child's fds 3 and 4 are the protocol's pipe
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)

        self.proc = subprocess.Popen(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
             "--hide-scrollbars", "--remote-debugging-pipe", f"--user-data-dir={profile}",
             f"--window-size={size[0]},{size[1]}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=plumb, pass_fds=(3, 4))  # noqa: PLW1509 - the child only dup2s two fds
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._ids = itertools.count(1)
        self._answers: dict[int, queue.Queue] = {}
        self.events: queue.Queue = queue.Queue()
        self._lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()
        pages = [t for t in self.call("Target.getTargets", session=False)["targetInfos"] if t["type"] == "page"]
        target = pages[0]["targetId"] if pages else self.call("Target.createTarget", {"url": "about:blank"},
                                                                 session=False)["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True},
                                 session=False)["sessionId"]
        self.call("Page.enable")
        self.call("Runtime.enable")

    def _read(self) -> None:
        buffer = b""
        while True:
            chunk = os.read(self._in, 65536)
            if not chunk:
                return
            buffer += chunk
            while b"\0" in buffer:
                raw, buffer = buffer.split(b"\0", 1)
                message = json.loads(raw)
                if "id" in message:
                    with self._lock:
                        waiting = self._answers.get(message["id"])
                    if waiting is not None:
                        waiting.put(message)
                else:
                    self.events.put(message)

    def call(self, method: str, params: dict[str, Any] | None = None, *, session: bool = True) -> dict[str, Any]:
        number = next(self._ids)
        answer: queue.Queue = queue.Queue()
        with self._lock:
            self._answers[number] = answer
        message: dict[str, Any] = {"id": number, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        os.write(self._out, json.dumps(message).encode() + b"\0")
        try:
            reply = answer.get(timeout=TIMEOUT_S)
        except queue.Empty:
            raise AssertionError(f"chromium did not answer {method} in {TIMEOUT_S} s") from None
        if "error" in reply:
            raise AssertionError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def wait_for(self, event: str) -> dict[str, Any]:
        deadline = time.monotonic() + TIMEOUT_S
        while time.monotonic() < deadline:
            try:
                message = self.events.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            if message.get("method") == event:
                return message.get("params", {})
        raise AssertionError(f"no {event} in {TIMEOUT_S} s")

    def evaluate(self, expression: str) -> Any:
        reply = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in reply:
            raise AssertionError(f"{expression}: {reply['exceptionDetails']}")
        return reply["result"].get("value")

    def loads(self, expression: str) -> None:
        """Run `expression` (a click, a submit, a navigation) and wait for the page it loads."""
        self._drain()
        self.evaluate(expression)
        self.wait_for("Page.loadEventFired")

    def click(self, x: float, y: float, *, loads: bool = False) -> None:
        """A left click of the mouse at (x, y), CSS px of the viewport, as a person's: moved
        there, pressed, released. With `loads`, wait for the page the click loads."""
        self._drain()
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})
        if loads:
            self.wait_for("Page.loadEventFired")

    def goto(self, url: str) -> None:
        self._drain()
        self.call("Page.navigate", {"url": url})
        self.wait_for("Page.loadEventFired")

    def screenshot(self, path: Path) -> None:
        path.write_bytes(base64.b64decode(self.call("Page.captureScreenshot", {"format": "png"})["data"]))

    def _drain(self) -> None:
        while not self.events.empty():
            self.events.get_nowait()

    def close(self) -> None:
        with contextlib.suppress(AssertionError, OSError):
            self.call("Browser.close", session=False)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        for fd in (self._out, self._in):
            with contextlib.suppress(OSError):
                os.close(fd)
