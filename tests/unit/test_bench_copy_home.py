"""The benchmarks copy memory homes (`latency.copy_home`): the copy holds the same bytes, and
the vector index's sparse files stay sparse, so two copies of a small home do not write
hundreds of megabytes of zeros to the disk."""

from __future__ import annotations

import os
from pathlib import Path

from benchmark_scripts import load_benchmark

latency = load_benchmark("latency")

MIB = 1 << 20


def _sparse_file(path: Path, length: int, data: dict[int, bytes]) -> None:
    with open(path, "wb") as out:
        out.truncate(length)
        for offset, chunk in data.items():
            out.seek(offset)
            out.write(chunk)


def test_a_copied_home_holds_the_same_bytes_and_keeps_its_holes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "vectors").mkdir(parents=True)
    _sparse_file(home / "vectors" / "storage.dat", 256 * MIB, {0: b"head", 100 * MIB: os.urandom(70_000)})
    _sparse_file(home / "vectors" / "tail_hole.dat", 64 * MIB, {MIB: b"x" * 10})
    (home / "graph.aof").write_bytes(b"*3\r\n$3\r\nSET\r\n" * 1000)
    (home / "empty").write_bytes(b"")
    os.chmod(home / "graph.aof", 0o600)

    latency.copy_home(home, tmp_path / "copy")

    for source in (p for p in home.rglob("*") if p.is_file()):
        copy = tmp_path / "copy" / source.relative_to(home)
        assert copy.read_bytes() == source.read_bytes(), f"{copy.name}: the same bytes"
        assert copy.stat().st_mode == source.stat().st_mode, f"{copy.name}: the same permissions"
        assert copy.stat().st_blocks * 512 <= source.stat().st_blocks * 512 + MIB, (
            f"{copy.name}: its holes stay holes ({copy.stat().st_blocks * 512:,} bytes on disk, "
            f"{source.stat().st_blocks * 512:,} in the original)")
    assert (tmp_path / "copy" / "vectors" / "storage.dat").stat().st_blocks * 512 < 4 * MIB
