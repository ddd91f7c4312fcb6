"""One OpenAI SDK client set-up for the embedder and the chat model: the library's retry
policy instead of the SDK's, and the base URL redacted for error messages."""

from __future__ import annotations

from typing import Any

from cogmem_graph.providers.retry import RetryConfig, clean_base_url


def openai_client(api_key: str, base_url: str | None, retry: RetryConfig) -> tuple[Any, str | None]:
    """The SDK client (imported here: the `openai` extra is optional) and its redacted base URL."""
    import openai

    client = openai.OpenAI(
        api_key=api_key,
        base_url=base_url,
        timeout=retry.timeout_s,
        max_retries=0,  # one retry policy, ours
    )
    return client, clean_base_url(str(client.base_url))
