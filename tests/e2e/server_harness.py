"""A real `cogmem serve` process for the server tests: keys made with `cogmem keys add`,
the server started on a free loopback port with the embedded backends and the hash
embedder, and stopped (SIGTERM, then SIGKILL) however the test ends."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

REPO = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 90.0


def child_env(**extra: str) -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": path}
    for name in ("COGMEM_SERVER", "COGMEM_API_KEY", "COGMEM_HOME", "COGMEM_KEYS_FILE"):
        env.pop(name, None)
    env.update(extra)
    return env


def cogmem(*args: str, timeout: float = 120, **extra_env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cogmem_graph.cli", *args], env=child_env(**extra_env),
                          cwd=REPO, capture_output=True, text=True, timeout=timeout)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def add_key(home: Path, *args: str) -> str:
    done = cogmem("--home", str(home), "keys", "add", *args)
    assert done.returncode == 0, done.stderr
    key = done.stdout.strip()
    assert key.startswith("cgm_") and key not in done.stderr
    return key


@dataclass
class Server:
    home: Path
    port: int
    args: tuple[str, ...] = ()
    proc: subprocess.Popen | None = None
    command: tuple[str, ...] = ("-m", "cogmem_graph.cli")  # or a driver script that runs the CLI
    env: dict[str, str] = field(default_factory=dict)
    log: Path = field(init=False)

    def __post_init__(self) -> None:
        self.log = self.home.parent / f"server-{self.port}.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Server:
        with open(self.log, "a") as log:
            self.proc = subprocess.Popen(
                [sys.executable, *self.command, "--home", str(self.home), "--embedder", "hash",
                 "serve", "--port", str(self.port), *self.args],
                env=child_env(**self.env), cwd=REPO, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"server exited ({self.proc.returncode}): {self.log.read_text()[-3000:]}")
            try:
                if httpx.get(f"{self.url}/ready", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        self.stop()
        raise AssertionError(f"server not ready in {START_TIMEOUT_S} s: {self.log.read_text()[-3000:]}")

    def stop(self) -> int | None:
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else None
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.kill()
            return None

    def kill(self) -> None:
        """SIGKILL the server process, as a crash would: no shutdown code runs."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=30)


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


MCP_CALL_TIMEOUT_S = 60


@asynccontextmanager
async def mcp_session(url: str, key: str):
    """An MCP SDK client session on the server's streamable HTTP endpoint, with this key."""
    async with (create_mcp_http_client(headers={"Authorization": f"Bearer {key}"}) as http,
                streamable_http_client(f"{url}/mcp", http_client=http) as streams,
                ClientSession(streams[0], streams[1]) as session):
        await session.initialize()
        yield session


async def mcp_tool(session: ClientSession, name: str, **arguments) -> dict:
    """One tool call that must succeed; its structured answer."""
    with anyio.fail_after(MCP_CALL_TIMEOUT_S):
        result = await session.call_tool(name, arguments)
    assert not result.is_error, result.content
    return result.structured_content
