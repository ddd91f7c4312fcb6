"""Runs chains of documentation blocks in order, in this process (tests/docs/test_code_blocks.py
starts one per chain, or one for all of README.md's): Python blocks share one namespace, shell
blocks run with `bash -e`, and a shell block's exported variables carry over to the blocks after
it (to Python as os.environ). When a chain ends, what its shell blocks started in the background
(`cogmem serve &`) is stopped, politely first, before the next chain starts.

Usage: python chain_runner.py CHAINS.json PROGRESS_FILE, CHAINS.json holding a list of chains,
each a list of blocks. Each block is compiled under its markdown file's path, padded so a
traceback or a bash error names the file's own line numbers. Exit status 0 when every block
ran; otherwise the failing block's status (1 for Python)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import traceback
from pathlib import Path

# What bash itself sets in the environment it hands back, not what a block exported.
SHELL_OWN = {"_", "SHLVL", "PWD", "OLDPWD", "DOC_BLOCK_ENV"}


def _log(progress: Path, text: str) -> None:
    with progress.open("a", encoding="utf-8") as f:
        f.write(text + "\n")


def _run_python(block: dict, namespace: dict) -> int:
    source = "\n" * (block["line"] - 1) + block["code"]
    try:
        exec(compile(source, block["path"], "exec"), namespace)  # noqa: S102 - running the docs is the point
    except BaseException:  # noqa: BLE001 - any failure of a block is reported, with its traceback
        traceback.print_exc()
        return 1
    return 0


def _run_shell(block: dict, scratch: Path, index: int) -> int:
    env_out = scratch / f"env-{index}"
    script = scratch / f"block-{index}-{Path(block['path']).name}.sh"
    # Line 1 names the failing line and saves the exported environment when the block ends;
    # the code starts at its own line of the markdown file.
    prelude = (f"trap 's=$?; echo \"{block['file']}:$LINENO: exit $s\" >&2' ERR; "
               "trap 'env -0 > \"$DOC_BLOCK_ENV\"' EXIT\n")
    script.write_text(prelude + "\n" * (block["line"] - 2) + block["code"], encoding="utf-8")
    env = dict(os.environ, DOC_BLOCK_ENV=str(env_out))
    status = subprocess.call(["bash", "-e", str(script)], env=env, stdin=subprocess.DEVNULL)
    if status == 0 and env_out.exists():
        exported = dict(item.split("=", 1) for item in env_out.read_text("utf-8").split("\0") if "=" in item)
        os.environ.clear()
        os.environ.update({k: v for k, v in exported.items() if k not in SHELL_OWN})
    return status


def live_members(group: int, spare: int | None = None) -> dict[int, int]:
    """The processes of a process group that have not ended (a zombie nobody reaps has), but
    `spare` and its children: pid -> parent pid."""
    members = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            state, ppid, pgrp = stat.read_text().rsplit(")", 1)[1].split()[:3]
            pid = int(stat.parent.name)
        except (OSError, IndexError, ValueError):
            continue
        if int(pgrp) == group and state != "Z" and spare not in (pid, int(ppid)):
            members[pid] = int(ppid)
    return members


def stop_group(group: int, spare: int | None = None) -> None:
    """End a process group's processes but `spare` and its children (the embedded graph of a
    store `spare` holds): SIGTERM to those whose parent is not in the group (a server, which
    closes its store and stops its own children), then SIGKILL to all after a grace period."""
    for sig, grace in ((signal.SIGTERM, 20.0), (signal.SIGKILL, 5.0)):
        left = live_members(group, spare)
        for pid, parent in left.items():
            if sig == signal.SIGKILL or parent not in left:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, sig)
        deadline = time.monotonic() + grace
        while left and time.monotonic() < deadline:
            time.sleep(0.1)
            left = live_members(group, spare)
        if not left:
            return


def main() -> int:
    chains = json.loads(Path(sys.argv[1]).read_text("utf-8"))
    progress = Path(sys.argv[2])
    scratch = Path(sys.argv[1]).parent
    namespace: dict = {"__name__": "__main__"}
    index = 0
    for chain in chains:
        for block in chain:
            where = f"{block['file']}:{block['line']} ({block['lang']})"
            _log(progress, f"start {where}")
            print(f"----- {where}", flush=True)
            sys.stderr.flush()
            status = _run_python(block, namespace) if block["lang"] == "python" else _run_shell(block, scratch, index)
            index += 1
            sys.stdout.flush()
            sys.stderr.flush()
            if status != 0:
                _log(progress, f"failed {where}")
                return status
            _log(progress, f"done {where}")
        stop_group(os.getpgid(0), spare=os.getpid())
    return 0


if __name__ == "__main__":
    sys.exit(main())
