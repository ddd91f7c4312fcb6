"""Packs the top-level `cypher/` folder into the wheel as `cogmem_graph/_cypher`.

The statements live beside the package in the repository (one folder a reader
and Neo4j's linter can walk); an installed package has no repository around it,
so the build copies them in, where `graph.cypher.cypher_root` looks first.
Everything else is declared in pyproject.toml.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
RUNTIME_SUFFIXES = {".cypher", ".html", ".grass"}


class BuildWithCypher(build_py):
    def run(self) -> None:
        super().run()
        source = HERE / "cypher"
        if not source.is_dir():  # building from an sdist that lost it: fail, don't ship a dud
            raise SystemExit(f"cannot build: {source} is missing")
        target = Path(self.build_lib) / "cogmem_graph" / "_cypher"
        if target.exists():
            shutil.rmtree(target)
        for path in sorted(source.rglob("*")):
            if path.is_file() and path.suffix in RUNTIME_SUFFIXES:
                dest = target / path.relative_to(source)
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, dest)


setup(cmdclass={"build_py": BuildWithCypher})
