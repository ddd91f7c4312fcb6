"""How long `cogmem` commands take on a home of 1,000 memories, and how much memory they use.

    python benchmarks/cli_startup.py                  # the default embedder (local MiniLM)
    python benchmarks/cli_startup.py --runs 3 --memories 300

Each command runs as a user runs it, a new process each time (`python -m cogmem_graph.cli`),
`--runs` times, interleaved; the table prints the median wall time and the median peak
resident memory of the command's process (the embedded graph server it starts is a process
of its own and not counted). Goal: `stats` and `export` under 1.5 s and 250 MB: they never
load an embedding model. `recall` embeds the query, so it loads the model: it is shown beside
them as the baseline of a command that must.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

import cogmem_graph as cg

SUBJECTS = ["Maya", "the team", "my sister", "Jonas", "our landlord", "the dentist", "Priya", "the coach"]
VERBS = ["moved the meeting to", "asked about", "mentioned", "booked", "cancelled", "wrote about", "paid for"]
OBJECTS = ["the trip to Porto", "a Tuesday slot", "the quarterly report", "dinner at eight", "the new bike",
           "the rent increase", "a check-up in March", "the spring tournament"]


def fill(home: Path, n: int, embedder: str, progress: Progress) -> None:
    rng = random.Random(5)
    items = [{"content": f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)} (note {i})"}
             for i in range(n)]
    task = progress.add_task(f"a home of {n:,} memories", total=n)
    with cg.open(home=home, embedder=embedder) as store:
        agent = store.agent("bench", user_id="reader")
        for start in range(0, n, 100):
            agent.encode_many(items[start:start + 100])
            progress.advance(task, min(100, n - start))


def _peak_mb(pid: int) -> float:
    """The process's peak resident memory so far (VmHWM), 0 once it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def run_once(argv: list[str]) -> tuple[float, float]:
    """(seconds, peak resident MB) of one command in a process of its own. The peak is read
    from the process itself while it runs (its rusage at exit would also count the embedded
    graph server it started and stopped)."""
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "cogmem_graph.cli", *argv],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = 0.0
    while process.poll() is None:
        peak = max(peak, _peak_mb(process.pid))
        time.sleep(0.01)
    took = time.perf_counter() - started
    error = process.stderr.read().decode() if process.stderr else ""
    if process.returncode != 0:
        raise SystemExit(f"cogmem {' '.join(argv)} failed ({process.returncode}): {error[-2000:]}")
    return took, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--memories", type=int, default=1_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--embedder", default="local", help="the home's embedder (default: local MiniLM)")
    args = parser.parse_args()
    console = Console(width=120)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        out = Path(tmp) / "export.jsonl"
        common = ["--home", str(home), "--embedder", args.embedder]
        agent = [*common, "--agent", "bench", "--user", "reader"]
        commands = {
            "stats": [*common, "stats"],
            "export": [*common, "export", str(out)],
            "recall (loads the model)": [*agent, "recall", "--no-reinforce", "when is the check-up?"],
        }
        with Progress(console=console, transient=True) as progress:
            fill(home, args.memories, args.embedder, progress)
            runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
            task = progress.add_task("commands", total=args.runs * len(commands))
            for _ in range(args.runs):  # interleaved: a slow moment of the machine hits every command
                for name, argv in commands.items():
                    runs[name].append(run_once(argv))
                    progress.advance(task)
    table = Table(title=f"cogmem commands on a home of {args.memories:,} memories "
                        f"(median of {args.runs}, embedder {args.embedder})")
    for column in ("command", "wall (s)", "min-max (s)", "peak RSS (MB)", "goal"):
        table.add_column(column)
    for name, results in runs.items():
        seconds = [s for s, _ in results]
        rss = statistics.median(m for _, m in results)
        goal = "baseline" if "recall" in name else "< 1.5 s, < 250 MB"
        table.add_row(name, f"{statistics.median(seconds):.2f}", f"{min(seconds):.2f}-{max(seconds):.2f}",
                      f"{rss:.0f}", goal)
    console.print(table)


if __name__ == "__main__":
    main()
