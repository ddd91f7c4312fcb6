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
  targets that install the project, `pip install` from the package index, and the benchmarks
  (minutes to hours each, on a checkout).
- README.md is read as its user follows it: its chains run one after another in one
  interpreter, one working directory and one home (a chain that leaves the home open makes a
  later one fail), from a wheel built from this checkout in a fresh virtual environment whose
  third-party packages are exactly what the `pip install 'cogmem-graph[...]'` lines of its
  "Install" section bring (tests/wheel_venv.py), with its `bin` first on PATH: a block needing a
  package those extras do not pull in fails. When a chain ends, what it started in the
  background is stopped before the next one starts.
- Every chain of docs/*.md runs in a fresh temporary directory as its working directory, with
  COGMEM_HOME inside it and HOME beside it, the project's `.venv/bin` first on PATH (docs/*.md
  may use any extra). For both: no credentials, a timeout, and no network: Python processes may
  connect to loopback only (offline/sitecustomize.py), and proxies point nowhere for everything
  else. Chains run two at a time (one per core; those using the server's port take turns). A
  failure names the file, the line and the chain's output.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from chain_runner import stop_group
from markdown_it import MarkdownIt
from wheel_venv import build_wheel, make_venv

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = [README, *sorted((ROOT / "docs").glob("*.md"))]
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
NOT_RUN_GROUNDS = ("neo4j", "qdrant", "openai", "cohere", "docker", "make ", "pip install", "benchmark")
INSTALL_SECTION = "Install"  # README's section whose `pip install` lines name the extras its blocks may use
PIP_INSTALL = re.compile(r"\bpip install\b[^\n]*?\bcogmem-graph(?:\[(?P<extras>[^\]]*)\])?")
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


def install_extras() -> list[str]:
    """The extras of the `pip install 'cogmem-graph[...]'` lines in the code blocks of README's
    "Install" section (empty when it has none)."""
    tokens = MarkdownIt("commonmark").parse(README.read_text("utf-8"))
    section, extras = None, set()
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag == "h2":
            section = tokens[index + 1].content.strip()
        elif token.type == "fence" and section == INSTALL_SECTION:
            for match in PIP_INSTALL.finditer(token.content):
                extras |= {e.strip() for e in (match["extras"] or "").split(",") if e.strip()}
    return sorted(extras)


CHAINS, SKIPPED, PROBLEMS = collect()
README_CHAINS = [c for c in CHAINS if c.blocks[0].path == README]
DOC_CHAINS = [c for c in CHAINS if c.blocks[0].path != README]


def test_the_docs_have_runnable_blocks_and_well_formed_directives() -> None:
    assert not PROBLEMS, "\n".join(PROBLEMS)
    assert README_CHAINS
    assert install_extras(), f"README.md's {INSTALL_SECTION!r} section names no `pip install 'cogmem-graph[...]'`"


@pytest.mark.parametrize("block", SKIPPED, ids=[b.where for b in SKIPPED])
def test_block_not_run(block: Block) -> None:
    pytest.skip(f"{block.where}: not run: {block.not_run}")


def _environment(work: Path, home: Path, tmp: Path, bin_dir: Path) -> dict[str, str]:
    """A user's shell on a fresh machine, offline: nothing comes from the caller's environment,
    so no credential, COGMEM_* setting or proxy of this machine leaks in."""
    dead_proxy = "http://127.0.0.1:9"  # the discard port: nothing answers there
    return {
        "PATH": os.pathsep.join([str(bin_dir), "/usr/local/bin", "/usr/bin", "/bin"]),
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
def _server_port(chains: list[Chain]):
    """Chains that start `cogmem serve` on its documented port hold that port: chains of
    this run and concurrent runs of this test take turns; a port held by something else for a
    minute is reported (False) rather than blamed on the chain."""
    if not any(f":{SERVER_PORT}" in b.code or "cogmem serve" in b.code for c in chains for b in c.blocks):
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


def run_chains(chains: list[Chain], base: Path, bin_dir: Path = BIN) -> tuple[str | None, str]:
    """Run chains one after another in one interpreter of `bin_dir` and one directory and home in
    `base`: (None when every block ran, else what failed; the output)."""
    work, home, tmp, scratch = (base / name for name in ("work", "home", "tmp", "scratch"))
    for folder in (work, home, tmp, scratch):
        folder.mkdir()
    spec = scratch / "chains.json"
    spec.write_text(json.dumps([[b.as_json() for b in c.blocks] for c in chains]), encoding="utf-8")
    progress, log_path = scratch / "progress", scratch / "output"
    timeout = CHAIN_TIMEOUT_S * len(chains)
    with _server_port(chains) as port_free, log_path.open("wb") as log:
        if not port_free:
            return f"{chains[0].id}: port {SERVER_PORT} is taken by another process; the documented server needs it", ""
        process = subprocess.Popen([str(bin_dir / "python"), str(RUNNER), str(spec), str(progress)], cwd=work,
                                   env=_environment(work, home, tmp, bin_dir), stdin=subprocess.DEVNULL, stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        try:
            status = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            status = None
        finally:
            # What the chains left running (a server started in the background), politely first.
            stop_group(process.pid)
            process.wait()
    steps = progress.read_text("utf-8").splitlines() if progress.exists() else []
    last = steps[-1].split(" ", 1)[1] if steps else chains[0].id
    output = log_path.read_text("utf-8", errors="replace")
    tail = "\n".join(output.splitlines()[-120:])
    if status is None:
        return f"{last}: still running after {timeout} s\n--- output ---\n{tail}", output
    if status != 0:
        return f"{last} failed (exit {status})\n--- output ---\n{tail}", output
    return None, output


def _readme_from_the_wheel(base: Path) -> tuple[str | None, str]:
    """README's chains, in order, in a fresh environment holding the wheel and exactly the
    requirements of the extras its "Install" section names."""
    bin_dir = make_venv(build_wheel(base / "build"), base / "env", install_extras())
    where = subprocess.run([str(bin_dir / "python"), "-c", "import cogmem_graph; print(cogmem_graph.__file__)"],
                           capture_output=True, text=True, timeout=120, cwd=base, env={"PATH": "/usr/bin:/bin"})
    if where.returncode != 0 or not where.stdout.startswith(str(bin_dir.parent)):
        return f"the fresh environment does not import the wheel: {where.stdout}{where.stderr}", ""
    run = base / "run"
    run.mkdir()
    return run_chains(README_CHAINS, run, bin_dir)


@pytest.fixture(scope="module")
def chain_results(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """The selected chains, started together on a pool as wide as the machine's cores
    (at most 2): each test waits for its own chain's result. README's chains are one job,
    the first submitted: it builds the wheel and its environment, then runs them in order."""
    assert (BIN / "cogmem").exists(), f"no cogmem beside {sys.executable}"
    mine = [item for item in request.session.items if item.path.resolve() == Path(__file__).resolve()]
    selected = [item.callspec.params["chain"] for item in mine
                if getattr(item, "originalname", "") == "test_chain_runs"]
    pool = ThreadPoolExecutor(max_workers=max(1, min(2, os.cpu_count() or 1)))
    futures = {}
    if any(item.name == test_readme_runs_in_order_from_the_installed_wheel.__name__ for item in mine):
        futures[README.name] = pool.submit(_readme_from_the_wheel, tmp_path_factory.mktemp("readme"))
    for chain in selected:
        futures[chain.id] = pool.submit(run_chains, [chain], tmp_path_factory.mktemp("chain"))
    yield futures
    pool.shutdown(wait=True, cancel_futures=True)


def _report(outcome) -> None:
    problem, output = outcome.result()
    print(output)  # shown with `pytest -rP`
    if problem is not None:
        pytest.fail(problem, pytrace=False)


@pytest.mark.slow
def test_readme_runs_in_order_from_the_installed_wheel(chain_results: dict) -> None:
    _report(chain_results[README.name])


@pytest.mark.slow
@pytest.mark.parametrize("chain", DOC_CHAINS, ids=[c.id for c in DOC_CHAINS])
def test_chain_runs(chain: Chain, chain_results: dict) -> None:
    _report(chain_results[chain.id])
