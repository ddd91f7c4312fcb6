"""Every notebook under notebooks/ runs top to bottom on the embedded backends.

Each notebook gets a kernel on this interpreter (the project's virtualenv), a
fresh working directory and a fresh `COGMEM_HOME`, so it starts from an empty
memory exactly as a new user's would and leaves nothing behind. Any cell error
fails the test and names the notebook, the cell and the error.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import nbformat
import pytest
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

NOTEBOOKS_DIR = Path(__file__).resolve().parents[2] / "notebooks"
NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("*.ipynb"))
KERNEL_NAME = "cogmem-test"
CELL_TIMEOUT_S = 300
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _kernel_manager(tmp: Path, home: Path) -> KernelManager:
    """A kernel spec pinned to this interpreter, so a Jupyter install elsewhere on the
    machine (a user-level `python3` kernel) can never run the notebook instead."""
    spec_dir = tmp / "kernels" / KERNEL_NAME
    spec_dir.mkdir(parents=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "cogmem-graph test kernel",
        "language": "python",
        "env": {"COGMEM_HOME": str(home), "MPLBACKEND": "Agg", "PYTHONUNBUFFERED": "1"},
    }
    (spec_dir / "kernel.json").write_text(json.dumps(spec), encoding="utf-8")
    specs = KernelSpecManager(kernel_dirs=[str(tmp / "kernels")])
    return KernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=specs)


def _failure(path: Path, nb: nbformat.NotebookNode, error: CellExecutionError) -> str:
    """Which cell failed, its source and the traceback, without terminal colour codes."""
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                trace = ANSI.sub("", "\n".join(output.get("traceback", [])))
                return (f"{path.name}: cell {index} (execution {cell.get('execution_count')}) raised "
                        f"{output.get('ename')}: {output.get('evalue')}\n--- cell source ---\n"
                        f"{cell.source}\n--- traceback ---\n{trace}")
    return f"{path.name}: {ANSI.sub('', str(error))}"


def test_the_notebooks_folder_holds_the_quickstart() -> None:
    assert NOTEBOOKS_DIR / "quickstart.ipynb" in NOTEBOOKS


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_without_a_cell_error(path: Path, tmp_path: Path, monkeypatch) -> None:
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert any(c.cell_type == "code" and c.source.strip() for c in nb.cells), f"{path.name} has no code"
    # Kernel connection files and IPython's profile go to the temporary folder, not the user's home.
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "runtime"))
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    workdir = tmp_path / "work"
    workdir.mkdir()
    home = tmp_path / "home"
    client = NotebookClient(
        nb, km=_kernel_manager(tmp_path, home), timeout=CELL_TIMEOUT_S, allow_errors=False,
        resources={"metadata": {"path": str(workdir)}},
    )
    try:
        client.execute()
    except CellExecutionError as error:
        pytest.fail(_failure(path, nb, error), pytrace=False)
    executed = [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]
    assert all(c.execution_count for c in executed), "every code cell ran"
