"""The frameworks are optional: `import cogmem_graph` (the facade, the CLI, the integrations
package itself) loads none of them, and an integration whose extra is missing says which
extra to install. Checked in fresh interpreters."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FRAMEWORKS = ("langgraph", "langchain", "langchain_core", "langmem", "langsmith", "llama_index", "agents",
              "pydantic_ai", "crewai")


def _run(code: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env, cwd=ROOT)


def test_importing_cogmem_imports_no_framework() -> None:
    done = _run(f"""
import json, sys
import cogmem_graph as cg
cg.open, cg.MemoryFilter, cg.connect          # the facade and the client, loaded on first use
import cogmem_graph.cli, cogmem_graph.integrations
# shared, framework-free
import cogmem_graph.integrations.toolkit, cogmem_graph.integrations.calls, cogmem_graph.integrations.turns
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in {FRAMEWORKS!r})))
""")
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_an_integration_without_its_extra_names_the_extra_to_install() -> None:
    for module, blocked, extra in [("cogmem_graph.integrations.langgraph", "langgraph", "langgraph"),
                                   ("cogmem_graph.integrations.langchain", "langchain_core", "langchain"),
                                   ("cogmem_graph.integrations.llamaindex", "llama_index", "llamaindex"),
                                   ("cogmem_graph.integrations.openai_agents", "agents", "openai-agents"),
                                   ("cogmem_graph.integrations.pydantic_ai", "pydantic_ai", "pydantic-ai"),
                                   ("cogmem_graph.integrations.crewai", "crewai", "crewai")]:
        done = _run(f"""
import sys
sys.modules[{blocked!r}] = None               # as if the framework were not installed
try:
    import {module}
except ImportError as exc:
    print(exc)
""")
        assert done.returncode == 0, done.stderr[-3000:]
        assert f"{module} needs {blocked}: pip install 'cogmem-graph[{extra}]'" in done.stdout, done.stdout
