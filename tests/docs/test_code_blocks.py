"""Every Python and shell block of README.md and docs/*.md runs as copied, in order, in a
fresh home, offline.

Conventions (a line in README's "Tests" says the same):
- A fenced block whose info string is `python` (`py`), `bash`, `sh` or `shell` runs; other fences
  (json, plain text) are not code to run.
- `<!-- continues -->` on the line before a block: it continues the previous block of the same
  file that runs (blocks not run are passed over). Such blocks form a chain, run in order by
  one interpreter (a subprocess per chain): Python blocks share one namespace, a shell block's
  exported variables reach the blocks after it, and what a shell block starts in the
  background (`cogmem serve &`) lives until the chain ends. A block without it starts a chain.
- `<!-- not run: REASON -->` on the line before a block: skipped, with REASON shown. Only for
  what cannot run offline here: a Neo4j or Qdrant server, OpenAI or Cohere, Docker, `make`
  targets that install the project, and the benchmarks (minutes to hours each, on a checkout).
- Every chain runs in a fresh temporary directory as its working directory, with COGMEM_HOME
  inside it and HOME beside it, the project's `.venv/bin` first on PATH, no credentials, a
  timeout, and no network: Python processes may connect to loopback only (offline/
  sitecustomize.py), and proxies point nowhere for everything else. Chains run two at a time
  (one per core; those using the server's port take turns). A failure names the file, the
  line and the chain's output.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
HERE = Path(__file__).resolve().parent
RUNNER = HERE / "chain_runner.py"
OFFLINE = HERE / "offline"
BIN = Path(sys.executable).parent

RUN_LANGS = {"python": "python", "python3": "python", "py": "python",
             "bash": "shell", "sh": "shell", "shell": "shell"}
CONTINUES = re.compile(r"^<!--\s*continues\s*-->\s*$")
NOT_RUN = re.compile(r"^<!--\s*not run:\s*(?P<reason>\S.*?)\s*-->\s*$", re.S)
DIRECTIVE = re.compile(r"^<!--\s*(continue|not[ -]?run|skip|norun)", re.I)
# What may keep a block from running (NOT_RUN's reason names one of them).
NOT_RUN_GROUNDS = ("neo4j", "qdrant", "openai", "cohere", "docker", "make ", "benchmark")
CHAIN_TIMEOUT_S = 240
SERVER_PORT = 8765  # the documented default of `cogmem serve`


@dataclass
class Block:
    path: Path
    line: int  # 1-based line of the block's first code line
    lang: str  # "python" or "shell"
    code: str
    continues: bool = False
    not_run: str | None = None

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"

    def as_json(self) -> dict:
        return {"path": str(self.path), "file": str(self.path.relative_to(ROOT)), "line": self.line,
                "lang": self.lang, "code": self.code}


@dataclass
class Chain:
    blocks: list[Block] = field(default_factory=list)

    @property
    def id(self) -> str:
        return self.blocks[0].where


def read_blocks(path: Path) -> tuple[list[Block], list[str]]:
    """The runnable blocks of one markdown file, and what is wrong with its directives."""
    tokens = MarkdownIt("commonmark").parse(path.read_text("utf-8"))
    blocks: list[Block] = []
    problems: list[str] = []
    for index, token in enumerate(tokens):
        if token.type != "fence":
            continue
        lang = RUN_LANGS.get(token.info.strip().split(" ")[0].lower()) if token.info.strip() else None
        before = tokens[index - 1] if index else None
        comment = before.content.strip() if before is not None and before.type == "html_block" else ""
        line = token.map[0] + 2
        where = f"{path.relative_to(ROOT)}:{line}"
        if lang is None:
            if CONTINUES.match(comment) or NOT_RUN.match(comment):
                problems.append(f"{where}: a directive before a `{token.info}` block, which never runs")
            continue
        block = Block(path, line, lang, token.content)
        if CONTINUES.match(comment):
            block.continues = True
            if not [b for b in blocks if b.not_run is None]:
                problems.append(f"{where}: `continues`, but no runnable block comes before it in the file")
        elif match := NOT_RUN.match(comment):
            block.not_run = match["reason"]
            if not any(ground in block.not_run.lower() for ground in NOT_RUN_GROUNDS):
                problems.append(f"{where}: `not run: {block.not_run}` names none of {NOT_RUN_GROUNDS}: "
                                "only what cannot run offline here may be skipped")
        elif DIRECTIVE.match(comment):
            problems.append(f"{where}: unknown directive {comment!r} (`<!-- continues -->` or "
                            "`<!-- not run: REASON -->`)")
        blocks.append(block)
    return blocks, problems


def collect() -> tuple[list[Chain], list[Block], list[str]]:
    chains: list[Chain] = []
    skipped: list[Block] = []
    problems: list[str] = []
    for path in DOCS:
        blocks, file_problems = read_blocks(path)
        problems += file_problems
        current: Chain | None = None
        for block in blocks:
            if block.not_run is not None:
                skipped.append(block)
                continue
            if block.continues and current is not None:
                current.blocks.append(block)
            else:
                current = Chain([block])
                chains.append(current)
    return chains, skipped, problems


CHAINS, SKIPPED, PROBLEMS = collect()


def test_the_docs_have_runnable_blocks_and_well_formed_directives() -> None:
    assert not PROBLEMS, "\n".join(PROBLEMS)
    assert any(c.blocks[0].path.name == "README.md" for c in CHAINS)


@pytest.mark.parametrize("block", SKIPPED, ids=[b.where for b in SKIPPED])
def test_block_not_run(block: Block) -> None:
    pytest.skip(f"{block.where}: not run: {block.not_run}")


def _environment(work: Path, home: Path, tmp: Path) -> dict[str, str]:
    """A user's shell on a fresh machine, offline: nothing comes from the caller's environment,
    so no credential, COGMEM_* setting or proxy of this machine leaks in."""
    dead_proxy = "http://127.0.0.1:9"  # the discard port: nothing answers there
    return {
        "PATH": os.pathsep.join([str(BIN), "/usr/local/bin", "/usr/bin", "/bin"]),
        "HOME": str(home),
        "TMPDIR": str(tmp),
        "COGMEM_HOME": str(work / "memory-home"),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TZ": "UTC",
        "COLUMNS": "120",
        "PYTHONPATH": str(OFFLINE),
        "PYTHONHASHSEED": "0",
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "HF_HUB_DISABLE_TELEMETRY": "1",
        **{name: dead_proxy for name in ("http_proxy", "https_proxy", "all_proxy",
                                         "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")},
        "no_proxy": "localhost,127.0.0.1,::1",
        "NO_PROXY": "localhost,127.0.0.1,::1",
    }


def _port_in_use(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


@contextlib.contextmanager
def _server_port(chain: Chain):
    """A chain that starts `cogmem serve` on its documented port holds that port: chains of
    this run and concurrent runs of this test take turns; a port held by something else for a
    minute is reported (False) rather than blamed on the chain."""
    if not any(f":{SERVER_PORT}" in b.code or "cogmem serve" in b.code for b in chain.blocks):
        yield True
        return
    lock_path = Path(tempfile.gettempdir()) / f"cogmem-doc-blocks-port-{SERVER_PORT}.lock"
    with lock_path.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        deadline = time.monotonic() + 60
        while _port_in_use(SERVER_PORT):
            if time.monotonic() > deadline:
                yield False
                return
            time.sleep(1)
        yield True


def _stop_group(pgid: int) -> None:
    """End what the chain left running (a server it started in the background), politely
    first: a server closes its store on SIGTERM."""
    for sig, grace in ((signal.SIGTERM, 20.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            try:
                os.killpg(pgid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.1)


def run_chain(chain: Chain, base: Path) -> tuple[str | None, str]:
    """Run one chain in `base`: (None when every block ran, else what failed; its output)."""
    work, home, tmp, scratch = (base / name for name in ("work", "home", "tmp", "scratch"))
    for folder in (work, home, tmp, scratch):
        folder.mkdir()
    spec = scratch / "chain.json"
    spec.write_text(json.dumps([b.as_json() for b in chain.blocks]), encoding="utf-8")
    progress, log_path = scratch / "progress", scratch / "output"
    with _server_port(chain) as port_free, log_path.open("wb") as log:
        if not port_free:
            return f"{chain.id}: port {SERVER_PORT} is taken by another process; the documented server needs it", ""
        process = subprocess.Popen([sys.executable, str(RUNNER), str(spec), str(progress)], cwd=work,
                                   env=_environment(work, home, tmp), stdin=subprocess.DEVNULL, stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        try:
            status = process.wait(timeout=CHAIN_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            status = None
        finally:
            _stop_group(process.pid)
            process.wait()
    steps = progress.read_text("utf-8").splitlines() if progress.exists() else []
    last = steps[-1].split(" ", 1)[1] if steps else chain.id
    output = log_path.read_text("utf-8", errors="replace")
    tail = "\n".join(output.splitlines()[-120:])
    if status is None:
        return f"{last}: still running after {CHAIN_TIMEOUT_S} s\n--- output ---\n{tail}", output
    if status != 0:
        return f"{last} failed (exit {status})\n--- output ---\n{tail}", output
    return None, output


@pytest.fixture(scope="module")
def chain_results(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """The selected chains, started together on a pool as wide as the machine's cores
    (at most 2): each test waits for its own chain's result."""
    assert (BIN / "cogmem").exists(), f"no cogmem beside {sys.executable}"
    selected = [item.callspec.params["chain"] for item in request.session.items
                if item.path.resolve() == Path(__file__).resolve()
                and getattr(item, "originalname", "") == "test_chain_runs"]
    pool = ThreadPoolExecutor(max_workers=max(1, min(2, os.cpu_count() or 1)))
    futures = {chain.id: pool.submit(run_chain, chain, tmp_path_factory.mktemp("chain"))
               for chain in selected}
    yield futures
    pool.shutdown(wait=True, cancel_futures=True)


@pytest.mark.slow
@pytest.mark.parametrize("chain", CHAINS, ids=[c.id for c in CHAINS])
def test_chain_runs(chain: Chain, chain_results: dict) -> None:
    problem, output = chain_results[chain.id].result()
    print(output)  # shown with `pytest -rP`
    if problem is not None:
        pytest.fail(problem, pytrace=False)
