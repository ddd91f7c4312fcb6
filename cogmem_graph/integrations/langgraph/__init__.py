"""LangGraph on cogmem: `CogmemStore`, a `BaseStore` whose items are memories (extra
`langgraph`). See docs/integrations.md for how namespaces map to scopes."""

from cogmem_graph.integrations import require

require("langgraph.store.base", "langgraph")

from cogmem_graph.errors import NamespaceScanTooLarge  # noqa: E402
from cogmem_graph.integrations.langgraph.namespaces import NamespaceScopes  # noqa: E402
from cogmem_graph.integrations.langgraph.store import CogmemStore  # noqa: E402

__all__ = ["CogmemStore", "NamespaceScanTooLarge", "NamespaceScopes"]
