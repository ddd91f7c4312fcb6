"""Cross-encoder reranking through Cohere (optional step 5 of retrieval).

A reranker reads query and candidate together, so it catches relevance that
independent embeddings miss; it is a paid remote call, so it is optional and
the retrieval pipeline works without it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from pydantic import SecretStr

from cogmem_graph.errors import InvalidArgument
from cogmem_graph.providers.retry import (
    ProviderResponseError,
    RetryConfig,
    call_with_retry,
    clean_base_url,
    env_first,
    secret_value,
)

COHERE_DEFAULT_URL = "https://api.cohere.com"


@runtime_checkable
class Reranker(Protocol):
    """What retrieval needs from a reranker."""

    name: str

    def rerank(self, query: str, documents: Sequence[str], top_n: int | None = None) -> list[tuple[int, float]]:
        """(index into documents, relevance score) pairs, best first."""
        ...


class CohereReranker:
    """Cohere's rerank API (v2) with the shared retry policy.

    The key comes from the argument, CO_API_KEY or COHERE_API_KEY; the base URL
    from the argument or CO_API_URL (for a proxy or a local stand-in).
    """

    def __init__(
        self,
        model: str = "rerank-v3.5",
        *,
        api_key: str | SecretStr | None = None,
        base_url: str | None = None,
        max_tokens_per_doc: int | None = None,
        retry: RetryConfig | None = None,
    ) -> None:
        if not model:
            raise InvalidArgument("model: the Cohere rerank model name is empty", argument="model")
        key = secret_value(api_key) or env_first("CO_API_KEY", "COHERE_API_KEY")
        if not key:
            raise InvalidArgument(
                "api_key: the Cohere reranker needs a key; set CO_API_KEY (or COHERE_API_KEY) or pass api_key",
                argument="api_key"
            )
        if max_tokens_per_doc is not None and max_tokens_per_doc < 1:
            raise InvalidArgument(f"max_tokens_per_doc must be >= 1, got {max_tokens_per_doc}",
                                  argument="max_tokens_per_doc")
        self._api_key = SecretStr(key)
        self.model = model
        self.name = f"cohere:{model}"
        self.max_tokens_per_doc = max_tokens_per_doc
        self.retry = retry or RetryConfig()
        self.base_url = base_url or env_first("CO_API_URL")
        self._url = clean_base_url(self.base_url or COHERE_DEFAULT_URL)

        import cohere

        self._client = cohere.ClientV2(
            api_key=key,
            base_url=self.base_url,
            timeout=self.retry.timeout_s,
            max_retries=0,  # one retry policy, ours
            log_warning_experimental_features=False,
        )

    def __repr__(self) -> str:
        return f"CohereReranker(model={self.model!r}, base_url={self._url!r})"

    def rerank(
        self, query: str, documents: Sequence[str], top_n: int | None = None
    ) -> list[tuple[int, float]]:
        """Score `documents` against `query`; the best `top_n` as (index, score), best first."""
        docs = list(documents)
        if top_n is not None and top_n < 1:
            raise InvalidArgument(f"top_n must be >= 1, got {top_n}", argument="top_n")
        if not docs:
            return []
        n = len(docs) if top_n is None else min(top_n, len(docs))
        params: dict[str, Any] = {"model": self.model, "query": query, "documents": docs, "top_n": n}
        if self.max_tokens_per_doc is not None:
            params["max_tokens_per_doc"] = self.max_tokens_per_doc

        response = call_with_retry(
            lambda: self._client.rerank(**params),
            provider="Cohere",
            operation="rerank",
            url=self._url,
            config=self.retry,
            secrets=[self._api_key.get_secret_value()],
            key_hint="CO_API_KEY",
        )
        out: list[tuple[int, float]] = []
        for result in response.results or []:
            index = int(result.index)
            if not 0 <= index < len(docs):
                raise ProviderResponseError(
                    f"Cohere rerank at {self._url} returned index {index} for {len(docs)} documents",
                    provider="Cohere",
                    operation="rerank",
                )
            out.append((index, float(result.relevance_score)))
        out.sort(key=lambda pair: pair[1], reverse=True)
        return out[:n]
