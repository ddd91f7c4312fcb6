"""The package as a pip user gets it, offline: a wheel built from this checkout, installed in a
fresh virtual environment whose third-party packages are exactly what
`pip install 'cogmem-graph[EXTRAS]'` would bring.

Nothing is downloaded. The requirements of the wheel (with the chosen extras) are followed,
markers and extras evaluated by `packaging`, through the distributions installed in the
running environment (the dev venv), and only the distributions so reached are shown to the new
environment: a folder of symlinks to their files (from each one's RECORD) and their
`.dist-info`, added as a site folder by a `.pth` line. A module the code imports that the
requirements do not pull in is then missing there, as it would be for a user.
"""

from __future__ import annotations

import importlib.metadata as metadata
import shutil
import subprocess
import sys
import zipfile
from collections import defaultdict
from collections.abc import Iterable
from email.parser import Parser
from pathlib import Path, PurePosixPath

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
# What setup.py and pyproject.toml read to build the wheel (copied alone: the checkout also holds
# a Neo4j data folder and build tools that the build never reads).
BUILD_INPUTS = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "cogmem_graph", "cypher")
PROJECT = "cogmem-graph"


def copy_build_inputs(source: Path) -> Path:
    """`source`, made to hold a copy of what the build reads (`BUILD_INPUTS`) and nothing else."""
    source.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build", "dist")
    for name in BUILD_INPUTS:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, source / name, ignore=ignore)
        else:
            shutil.copy2(path, source / name)
    return source


def build_wheel(scratch: Path) -> Path:
    """A wheel of this checkout, built in `scratch` from a copy of the build's inputs (setuptools
    reuses a `build/` folder left in the source tree, which could hide a file the build itself
    no longer copies)."""
    source = copy_build_inputs(scratch / "source")
    out = scratch / "wheel"
    out.mkdir()
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(out), str(source)], check=True, cwd=out, capture_output=True, timeout=300)
    (found,) = out.glob("cogmem_graph-*.whl")
    return found


def wheel_metadata(wheel: Path) -> tuple[list[str], list[str]]:
    """The wheel's Requires-Dist lines and its extras."""
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        meta = Parser().parsestr(archive.read(name).decode("utf-8"))
    return meta.get_all("Requires-Dist") or [], meta.get_all("Provides-Extra") or []


def _wanted(requirement: Requirement, extras: frozenset[str]) -> bool:
    if requirement.marker is None:
        return True
    return any(requirement.marker.evaluate({"extra": extra}) for extra in (extras or {""}))


def requirement_closure(requires: Iterable[str], extras: Iterable[str]) -> dict[str, metadata.Distribution]:
    """The installed distributions that `requires` (the project's Requires-Dist) with `extras`
    reaches, by canonical name. A requirement whose distribution is missing here, or installed
    at a version it excludes, raises LookupError: this environment cannot stand in for pip."""
    installed: dict[str, metadata.Distribution] = {}
    for dist in metadata.distributions():
        installed.setdefault(canonicalize_name(dist.metadata["Name"]), dist)
    own = [Requirement(line) for line in requires]
    found: dict[str, metadata.Distribution] = {}
    seen: set[tuple[str, frozenset[str]]] = set()
    todo: list[tuple[Requirement, frozenset[str], str]] = [(r, frozenset(extras), PROJECT) for r in own]
    while todo:
        requirement, active, wanted_by = todo.pop()
        if not _wanted(requirement, active):
            continue
        name = canonicalize_name(requirement.name)
        key = (name, frozenset(requirement.extras))
        if key in seen:
            continue
        seen.add(key)
        if name == PROJECT:  # an extra naming the project's own other extras
            todo += [(r, frozenset(requirement.extras), PROJECT) for r in own]
            continue
        dist = installed.get(name)
        if dist is None:
            raise LookupError(f"{requirement} (required by {wanted_by}) is not installed in {sys.prefix}")
        if not requirement.specifier.contains(dist.version, prereleases=True):
            raise LookupError(f"{requirement} (required by {wanted_by}): {dist.version} is installed in {sys.prefix}")
        found[name] = dist
        todo += [(Requirement(line), frozenset(requirement.extras), name) for line in dist.requires or []]
    return found


def _relative_files(dist: metadata.Distribution) -> list[tuple[str, ...]]:
    """The parts of the dist's file paths inside its site folder (scripts in bin/ and absolute
    paths left out)."""
    files = dist.files
    if files is None:
        raise LookupError(f"{dist.metadata['Name']} has no RECORD: its files cannot be told apart")
    return [parts for parts in (PurePosixPath(f.as_posix()).parts for f in files)
            if parts and parts[0] not in ("..", "/")]


def expose(dists: Iterable[metadata.Distribution], site: Path) -> None:
    """Symlinks in `site` to the files of `dists` and nothing else: a folder is linked whole when
    every installed distribution with files in it is one of `dists` (a namespace folder shared
    with others is made here and its members linked one by one)."""
    chosen = {canonicalize_name(d.metadata["Name"]): d for d in dists}
    files = {name: (Path(d.locate_file("")).resolve(), _relative_files(d)) for name, d in chosen.items()}
    owners: dict[tuple[Path, tuple[str, ...]], set[str]] = defaultdict(set)
    for dist in metadata.distributions():
        name = canonicalize_name(dist.metadata["Name"])
        if name in chosen:
            base, paths = files[name]
        elif dist.files is None:
            continue
        else:
            base, paths = Path(dist.locate_file("")).resolve(), _relative_files(dist)
        for parts in paths:
            for depth in range(1, len(parts) + 1):
                owners[(base, parts[:depth])].add(name)
    links: dict[tuple[str, ...], Path] = {}
    for base, paths in files.values():
        for parts in paths:
            for depth in range(1, len(parts) + 1):
                if owners[(base, parts[:depth])] <= chosen.keys():
                    break
            links.setdefault(parts[:depth], base.joinpath(*parts[:depth]))  # else the file itself, shared
    site.mkdir(parents=True, exist_ok=True)
    for parts, target in sorted(links.items(), key=lambda item: len(item[0])):
        if not target.exists() or any(parts[:depth] in links for depth in range(1, len(parts))):
            continue  # a file the RECORD lists but that is not there, or inside a folder already linked
        link = site.joinpath(*parts)
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(target)


def make_venv(wheel: Path, where: Path, extras: Iterable[str] = ()) -> Path:
    """A fresh virtual environment in `where` holding `wheel` and, as its third-party packages,
    exactly the requirement closure of `cogmem-graph[extras]`; returns its bin folder."""
    extras = sorted(extras)
    requires, provided = wheel_metadata(wheel)
    unknown = sorted(set(extras) - set(provided))
    if unknown:
        raise LookupError(f"the wheel has no extra {unknown} (it has {provided})")
    venv = where / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    third_party = where / "third-party"
    expose(requirement_closure(requires, extras).values(), third_party)
    site = next((venv / "lib").glob("python3*/site-packages"))
    # A site folder, not a bare path: the .pth files of the distributions run as they would
    # in site-packages.
    (site / "_third_party.pth").write_text(f"import site; site.addsitedir({str(third_party)!r})\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install",
                    "--no-deps", "-q", str(wheel)], check=True, capture_output=True, timeout=300)
    return venv / "bin"
