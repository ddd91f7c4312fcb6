"""Write a small memory home with whichever cogmem_graph is importable, and pack it as a fixture.

The upgrade tests open homes written by older releases with today's code. This script makes
such a home: run it against an older checkout to capture that release's on-disk layout:

    git worktree add /tmp/wt-old <commit>
    PYTHONPATH=/tmp/wt-old .venv/bin/python tools/make_fixture_home.py tests/fixtures/homes/<name>.tar.gz

It uses only the public API every release since the first has (cg.open, store.agent,
agent.encode with scope, tags, metadata and entities) and, where the release has it, pin.
The archive holds `home/` (the memory home, its graph server stopped by `store.close()` so
its append-only log is complete) and `fixture.json` (what was written: ids, contents,
scopes, tags, metadata, the agent's identity and the release that wrote it), which the
tests check the opened home against. The hashing embedder keeps the vectors small and needs
no model files.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

IDENTITY = {"agent_id": "fixture-agent", "user_id": "u-priya", "thread_id": "t-planning",
            "organization_id": "acme"}
EMBEDDER = "hash"
MEMORIES = [
    {"key": "deploy", "content": "Priya deploys the Atlas service with Docker Compose on Fridays",
     "scope": "user", "tags": ["deployment"], "metadata": {"project": "atlas"}, "entities": ["Atlas"]},
    {"key": "allergy", "content": "Priya is allergic to hazelnuts and avoids praline desserts",
     "scope": "user", "tags": ["food"], "metadata": {"kind": "preference"}},
    {"key": "room", "content": "The Atlas planning meeting moved to room B2 on the fourth floor",
     "scope": "thread", "tags": ["meeting"], "metadata": {"project": "atlas", "room": "B2"}, "entities": ["Atlas"]},
    {"key": "policy", "content": "Acme requires two reviewers for every production change",
     "scope": "organization", "tags": ["policy"], "metadata": {"kind": "policy"}},
    {"key": "contact", "content": "Priya's emergency contact is her brother Tomasz in Gdansk",
     "scope": "user", "tags": ["personal"], "metadata": {"kind": "contact"}, "pinned": True},
    {"key": "staging", "content": "The Atlas staging cluster runs in Frankfurt on three nodes",
     "scope": "user", "type": "semantic", "tags": ["deployment"], "metadata": {"project": "atlas"},
     "entities": ["Atlas"]},
]
"""Two memories share the entity Atlas with the first (SHARED_ENTITY edges); the thread's and
the user's memories follow each other within minutes (TEMPORAL_SEQUENCE)."""

TRANSIENT = {"server.json", "server.log", "redis.log", "falkordb.log", "home.lock", "lock"}
"""Files a running store keeps beside its data; a stopped store's home needs none of them."""


def _commit_of(package_dir: Path) -> str:
    try:
        return subprocess.run(["git", "-C", str(package_dir), "rev-parse", "HEAD"], check=True,
                              capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def write_home(home: Path) -> dict:
    import cogmem_graph as cg

    written = []
    store = cg.open(home=str(home), embedder=EMBEDDER)
    try:
        agent = store.agent(IDENTITY["agent_id"], user_id=IDENTITY["user_id"], thread_id=IDENTITY["thread_id"],
                            organization_id=IDENTITY["organization_id"])
        for m in MEMORIES:
            fields = {"scope": m["scope"], "tags": m["tags"], "metadata": m["metadata"],
                      "type": m.get("type", "episodic")}
            if m.get("entities"):
                fields["entities"] = m["entities"]
            trace = agent.encode(m["content"], **fields)
            pinned = bool(m.get("pinned")) and hasattr(agent, "pin")
            if pinned:
                agent.pin(trace.id)
            written.append({**{k: v for k, v in m.items() if k != "pinned"}, "id": trace.id,
                            "type": fields["type"], "pinned": pinned})
    finally:
        store.close()
    package = Path(cg.__file__).resolve().parent
    return {"release": getattr(cg, "__version__", "unknown"), "commit": _commit_of(package.parent),
            "identity": IDENTITY, "embedder": EMBEDDER, "memories": written}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="the .tar.gz to write")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="cogmem-fixture-") as tmp:
        home = Path(tmp) / "home"
        manifest = write_home(home)
        (Path(tmp) / "fixture.json").write_text(json.dumps(manifest, indent=1) + "\n")
        args.out.parent.mkdir(parents=True, exist_ok=True)

        def keep(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
            if Path(info.name).name in TRANSIENT:
                return None
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.mtime = 0
            return info

        with tarfile.open(args.out, "w:gz") as tar:
            tar.add(Path(tmp) / "fixture.json", arcname="fixture.json", filter=keep)
            tar.add(home, arcname="home", filter=keep)
    print(f"{args.out}: {len(manifest['memories'])} memories written by {manifest['commit'][:12]}"
          f" ({args.out.stat().st_size} bytes)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
