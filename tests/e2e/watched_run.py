"""Run a Python command in a child process so that a hang explains itself.

`subprocess.run(timeout=...)` kills a stuck child and says only that time ran out. Here
the child runs with `-X faulthandler`; on timeout it gets SIGABRT first, which makes
Python print every thread's stack before it dies, and the failure carries that stack,
the child's output and the tail of any embedded FalkorDB log under the given home."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path


def _log_tails(home: Path | None, lines: int = 20) -> str:
    if home is None:
        return ""
    tails = []
    for log in sorted(home.rglob("server.log")):
        text = log.read_text(errors="replace").splitlines()[-lines:]
        tails.append(f"--- {log}\n" + "\n".join(text))
    return "\n".join(tails)


def run_python(args: list[str], *, timeout: float, home: Path | None = None,
               **popen: object) -> subprocess.CompletedProcess[str]:
    """`python -X faulthandler <args>`, its output captured as text; an AssertionError with
    the child's stacks if it outlives `timeout`."""
    command = [sys.executable, "-X", "faulthandler", *args]
    stdin = popen.pop("input", None)
    with subprocess.Popen(command, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          **popen) as child:  # type: ignore[call-overload]
        try:
            stdout, stderr = child.communicate(stdin, timeout=timeout)
        except subprocess.TimeoutExpired:
            child.send_signal(signal.SIGABRT)
            try:
                stdout, stderr = child.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                child.kill()
                stdout, stderr = child.communicate()
            raise AssertionError(
                f"{' '.join(args)} still ran after {timeout:.0f} s; its stacks and output:\n"
                f"stderr:\n{stderr}\nstdout (last 2000 chars):\n{stdout[-2000:]}\n{_log_tails(home)}"
            ) from None
    return subprocess.CompletedProcess(command, child.returncode, stdout, stderr)
