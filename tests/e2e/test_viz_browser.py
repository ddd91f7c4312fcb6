"""The `cogmem viz` page in a real browser: headless Chromium (Debian's `chromium`
package, installed by `make browser-tools`) loads the file offline, runs its
JavaScript, and must draw the nodes.

Checked two ways: the DOM after the scripts ran (the renderer's own canvas and
its accessible description "A graph visualization with N nodes and M
relationships", which must match the page's data), and a screenshot that is not
blank and shows the node colours of the palette.
"""

from __future__ import annotations

import json
import re
import struct
import subprocess
import zlib
from collections import Counter
from pathlib import Path

import pytest

import cogmem_graph as cg
from cogmem_graph.viz import META_ID, palette, write_viz

from .cdp import chromium

WINDOW = (900, 650)
VIRTUAL_TIME_MS = "8000"



def _run_chromium(binary: str, profile: Path, *args: str) -> subprocess.CompletedProcess:
    command = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
               "--no-first-run", "--hide-scrollbars", f"--user-data-dir={profile}",
               f"--window-size={WINDOW[0]},{WINDOW[1]}", f"--virtual-time-budget={VIRTUAL_TIME_MS}", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)


def read_png(path: Path) -> tuple[int, int, list[bytes], int]:
    """A minimal PNG decoder (8-bit RGB/RGBA, not interlaced): width, height, rows, bytes per pixel."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    width = height = depth = colour = interlace = 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
    assert depth == 8 and colour in (2, 6) and interlace == 0, f"unexpected PNG layout {depth}/{colour}/{interlace}"
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows: list[bytes] = []
    previous = bytearray(stride)
    offset = 0
    for _ in range(height):
        kind, line = raw[offset], bytearray(raw[offset + 1:offset + 1 + stride])
        offset += 1 + stride
        for x in range(stride):
            left = line[x - bpp] if x >= bpp else 0
            up = previous[x]
            up_left = previous[x - bpp] if x >= bpp else 0
            if kind == 1:
                line[x] = (line[x] + left) & 0xFF
            elif kind == 2:
                line[x] = (line[x] + up) & 0xFF
            elif kind == 3:
                line[x] = (line[x] + ((left + up) >> 1)) & 0xFF
            elif kind == 4:
                p = left + up - up_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
                line[x] = (line[x] + (left if pa <= pb and pa <= pc else up if pb <= pc else up_left)) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, height, rows, bpp


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> tuple[Path, dict]:
    """A viz page of a small memory: a few episodic and semantic traces linked by entities."""
    folder = tmp_path_factory.mktemp("viz")
    with cg.open(home=folder / "home", embedder="hash") as store:
        agent = store.agent("helper", user_id="maya", thread_id="t1")
        agent.encode_many([
            {"content": "Maya deploys everything with Docker Compose on one server."},
            {"content": "The Docker Compose server ran out of disk last Friday."},
            {"content": "Tom wants a postmortem about the Docker outage by Thursday."},
            {"content": "Maya prefers Grafana dashboards for monitoring.", "type": "semantic"},
            {"content": "Biscuit is Maya's dog and loves hiking.", "type": "semantic"},
        ])
        result = write_viz(agent, "Docker Compose server outage", folder / "graph.html", top_k=5)
    text = result.path.read_text()
    start = text.index(f'id="{META_ID}">') + len(f'id="{META_ID}">')
    meta = json.loads(text[start:text.index("</script>", start)])
    assert result.nodes >= 5 and result.relationships > 0
    return result.path, meta


def test_page_renders_every_node_in_headless_chromium(page, tmp_path) -> None:
    binary = chromium()
    path, meta = page
    done = _run_chromium(binary, tmp_path / "profile", "--dump-dom", path.resolve().as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    dom = done.stdout
    assert 'data-testid="nvl-c2d-canvas"' in dom or 'data-testid="nvl-gl-canvas"' in dom, "no graph canvas drawn"
    described = re.search(r"A graph visualization with (\d+) nodes and (\d+) relationships", dom)
    assert described, "the renderer did not describe a drawn graph (did its JavaScript run?)"
    assert int(described.group(1)) == meta["counts"]["nodes"]
    assert int(described.group(2)) == meta["counts"]["relationships"]


def test_screenshot_is_not_blank_and_shows_node_colours(page, tmp_path) -> None:
    binary = chromium()
    path, meta = page
    shot = tmp_path / "shot.png"
    done = _run_chromium(binary, tmp_path / "profile", f"--screenshot={shot}", path.resolve().as_uri())
    assert done.returncode == 0 and shot.is_file(), done.stderr[-2000:]
    width, height, rows, bpp = read_png(shot)
    assert (width, height) == WINDOW
    colours: Counter[bytes] = Counter()
    for row in rows:
        colours.update(row[x:x + 3] for x in range(0, len(row), bpp))
    background, background_pixels = colours.most_common(1)[0]
    assert background_pixels < 0.98 * width * height, "the screenshot is blank"
    assert len(colours) > 50, "too few colours for a drawn graph"
    shades = palette()
    for label in ("Episodic", "Entity"):
        assert meta["counts"].get(f"nodes:{label}"), f"the page should hold {label} nodes"
        rgb = bytes.fromhex(shades[label].lstrip("#"))
        assert colours[rgb] > 100, f"no {label} node drawn in {shades[label]}"
