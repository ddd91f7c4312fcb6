"""Agent frameworks on cogmem, each in its own extra and its own subpackage:

- `cogmem_graph.integrations.langgraph` (`pip install 'cogmem-graph[langgraph]'`): a LangGraph
  `BaseStore` whose items are memories;
- `cogmem_graph.integrations.langchain` (`pip install 'cogmem-graph[langchain]'`): `remember`,
  `recall` and `forget` as LangChain tools, and a retriever;
- `cogmem_graph.integrations.llamaindex` (`pip install 'cogmem-graph[llamaindex]'`): a memory
  block for LlamaIndex's `Memory`;
- `cogmem_graph.integrations.openai_agents` (`pip install 'cogmem-graph[openai-agents]'`):
  `remember`, `recall` and `forget` as OpenAI Agents SDK function tools, a session, and the
  memory context before each model call;
- `cogmem_graph.integrations.pydantic_ai` (`pip install 'cogmem-graph[pydantic-ai]'`): the
  same tools for Pydantic AI, and a capability that recalls before each model request and
  observes each run;
- `cogmem_graph.integrations.crewai` (`pip install 'cogmem-graph[crewai]'`, in an environment
  of its own: CrewAI's pins conflict with `server`'s): a CrewAI `Memory` for crews and agents.

What they share needs no framework: `toolkit` (the tools' arguments and answers), `calls`
(a handle's methods called from an event loop) and `turns` (chat turns to the observer).

They use the public facade only (an import-linter contract in pyproject.toml), and nothing
here is imported by `import cogmem_graph`: a process that does not use a framework never
loads it. See docs/integrations.md.
"""

from __future__ import annotations

import importlib


def require(module: str, extra: str) -> None:
    """Import `module`, or say which extra installs it (the framework is not a dependency of
    cogmem-graph itself). The extra `a-b` is the subpackage `a_b`."""
    try:
        importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(f"cogmem_graph.integrations.{extra.replace('-', '_')} needs {module.split('.')[0]}: "
                          f"pip install 'cogmem-graph[{extra}]'") from exc
