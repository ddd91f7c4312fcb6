"""Remote and local model providers: embedders, chat LLM, reranker, and their retry policy.

Heavy clients (torch, openai, cohere) are imported only when a provider that
needs them is constructed, so `import cogmem_graph` stays fast. Like every adapter it
imports only itself and modules of the package's root (the errors, `text.py`,
`redact.py`); never `cognition/`, `language/` or a layer that uses it (import-linter
contracts in pyproject.toml).
"""

from cogmem_graph.providers.cache import CachedEmbedder
from cogmem_graph.providers.embedders import (
    Embedder,
    HashEmbedder,
    LocalEmbedder,
    OpenAIEmbedder,
    best_local_embedder,
    make_embedder,
    minilm_model_path,
)
from cogmem_graph.providers.llm import LLM, OpenAIChat, parse_json_object
from cogmem_graph.providers.rerank import CohereReranker, Reranker
from cogmem_graph.providers.retry import (
    ProviderAuthError,
    ProviderError,
    ProviderRequestError,
    ProviderResponseError,
    ProviderUnavailable,
    RetryConfig,
    call_with_retry,
    is_transient,
)

__all__ = [
    "LLM",
    "CachedEmbedder",
    "CohereReranker",
    "Embedder",
    "HashEmbedder",
    "LocalEmbedder",
    "OpenAIChat",
    "OpenAIEmbedder",
    "ProviderAuthError",
    "ProviderError",
    "ProviderRequestError",
    "ProviderResponseError",
    "ProviderUnavailable",
    "Reranker",
    "RetryConfig",
    "best_local_embedder",
    "call_with_retry",
    "is_transient",
    "make_embedder",
    "minilm_model_path",
    "parse_json_object",
]
