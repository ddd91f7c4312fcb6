"""Run a command in a plain copy of this checkout: a user's clone, with nothing beside it.

A development checkout has the LoCoMo development data at `../shared/data/locomo`; a user's
clone does not. `make test` runs the suite's main pass through this tool, so every test is
seen as a user sees it: the tests that read the data skip with their reason, and no other
test may need what lies beside the checkout. (The data's own tests then run in a pass of
their own in the checkout.)

    python tools/plain_clone.py run [--keep] -- COMMAND [ARG ...]

The copy holds the files git tracks (and untracked ones it does not ignore, so a new test
is run before it is committed), in a fresh temporary folder. The rest of a clone is linked,
not copied: its `.git`, and what the Makefile's set-up builds inside it (the venv, the Cypher
linter's node modules and Neo4j's resolved jars), as a user's clone has them after `make
test`'s set-up. COMMAND runs in the copy with the copy's package first on PYTHONPATH; its exit
code is returned, and the copy is removed afterwards (`--keep` leaves it and says where).
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NAME = "cogmem-graph"
SET_UP = (".git", ".venv", "tools/cypher-lint/node_modules", "tools/neo4j/target")
"""What a clone holds besides its files: its repository, and what the Makefile builds inside it
(ignored by git); linked into the copy."""
COMPILED = ("cogmem_graph", "tests", "benchmarks")
"""Compiled once in the copy: each of the suite's Python processes would compile them again."""


def say(message: str) -> None:
    print(f"plain_clone: {message}", file=sys.stderr, flush=True)


def listed_files(root: Path = ROOT) -> list[str]:
    """Tracked files, and untracked ones git does not ignore, that exist in the work tree."""
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         cwd=root, capture_output=True, check=True).stdout
    return sorted({name for name in out.decode().split("\0") if name and (root / name).is_file()})


def make(into: Path, root: Path = ROOT) -> Path:
    """A plain copy of ROOT at INTO/cogmem-graph; INTO holds nothing else."""
    clone = into / NAME
    for name in listed_files(root):
        (clone / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / name, clone / name)
    for name in SET_UP:
        if (root / name).exists() and not (clone / name).exists():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            (clone / name).symlink_to(root / name, target_is_directory=True)
    for name in COMPILED:
        if (clone / name).is_dir():
            compileall.compile_dir(clone / name, quiet=1)
    return clone


def run(cmd: Sequence[str], keep: bool = False) -> int:
    """COMMAND in a fresh plain copy; its exit code (128+N for a death by signal N)."""
    into = Path(tempfile.mkdtemp(prefix="cogmem-plain-"))
    signal.signal(signal.SIGTERM, lambda signum, _frame: sys.exit(128 + signum))
    try:
        clone = make(into)
        say(f"running in {clone} (nothing beside it): {' '.join(cmd)}")
        path = os.pathsep.join(p for p in (str(clone), os.environ.get("PYTHONPATH", "")) if p)
        with subprocess.Popen(list(cmd), cwd=clone, env={**os.environ, "PYTHONPATH": path}) as child:
            try:
                code = child.wait()
            except BaseException:
                child.terminate()
                child.wait()
                raise
        return 128 - code if code < 0 else code
    finally:
        if keep:
            say(f"kept {into}")
        else:
            shutil.rmtree(into, ignore_errors=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="action", required=True)
    runner = sub.add_parser("run", help="run COMMAND in a fresh plain copy")
    runner.add_argument("--keep", action="store_true", help="leave the copy in place afterwards")
    runner.add_argument("cmd", nargs=argparse.REMAINDER, help="-- COMMAND [ARG ...]")
    args = parser.parse_args(argv)
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if not cmd:
        parser.error("run needs a command after --")
    return run(cmd, keep=args.keep)


if __name__ == "__main__":
    sys.exit(main())
