"""LangChain on cogmem (extra `langchain`): `remember`, `recall` and `forget` as tools, and
`CogmemRetriever`. See docs/integrations.md."""

from cogmem_graph.integrations import require

require("langchain_core.tools", "langchain")

from cogmem_graph.integrations.langchain.documents import document_of, documents_of  # noqa: E402
from cogmem_graph.integrations.langchain.retriever import CogmemRetriever  # noqa: E402
from cogmem_graph.integrations.langchain.tools import (  # noqa: E402
    ForgetArgs,
    RecallArgs,
    RememberArgs,
    forget_tool,
    memory_tools,
    recall_tool,
    remember_tool,
)

__all__ = ["CogmemRetriever", "ForgetArgs", "RecallArgs", "RememberArgs", "document_of", "documents_of",
           "forget_tool", "memory_tools", "recall_tool", "remember_tool"]
