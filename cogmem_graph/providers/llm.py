"""OpenAI chat for the optional LLM steps (observer, reflector, schema summaries, gist).

Every caller has a heuristic fallback, so this module's job is to either
return text/JSON or raise a clear ProviderError the caller can catch; it never
returns a half-answer silently.
"""

from __future__ import annotations

import json
import re
from typing import Any, Protocol, runtime_checkable

from pydantic import SecretStr

from cogmem_graph.errors import InvalidArgument
from cogmem_graph.providers.openai_client import openai_client
from cogmem_graph.providers.retry import (
    ProviderResponseError,
    RetryConfig,
    call_with_retry,
    env_first,
    secret_value,
)

_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL | re.IGNORECASE)
# Reasoning models take max_completion_tokens and only the default temperature.
_REASONING_MODEL = re.compile(r"^(o\d|gpt-5)", re.IGNORECASE)


@runtime_checkable
class LLM(Protocol):
    """What the pipeline needs from a language model."""

    name: str

    def complete(self, system: str, user: str, *, max_tokens: int = 512, temperature: float = 0.2) -> str: ...

    def complete_json(
        self, system: str, user: str, *, max_tokens: int = 512, temperature: float = 0.0
    ) -> dict[str, Any]: ...


class OpenAIChat:
    """OpenAI chat completions (or any server speaking them) with the shared retry policy."""

    def __init__(
        self,
        model: str = "gpt-4o-mini",
        *,
        api_key: str | SecretStr | None = None,
        base_url: str | None = None,
        retry: RetryConfig | None = None,
    ) -> None:
        if not model:
            raise InvalidArgument("model: the OpenAI chat model name is empty", argument="model")
        key = secret_value(api_key) or env_first("OPENAI_API_KEY")
        if not key:
            raise InvalidArgument("api_key: the OpenAI chat model needs a key; set OPENAI_API_KEY or pass api_key",
                                  argument="api_key")
        self._api_key = SecretStr(key)
        self.model = model
        self.name = f"openai:{model}"
        self.retry = retry or RetryConfig()
        self.base_url = base_url or env_first("OPENAI_BASE_URL")

        self._client, self._url = openai_client(key, self.base_url, self.retry)

    def __repr__(self) -> str:
        return f"OpenAIChat(model={self.model!r}, base_url={self._url!r})"

    def _create(
        self,
        system: str,
        user: str,
        *,
        max_tokens: int,
        temperature: float,
        json_mode: bool,
    ) -> str:
        if max_tokens < 1:
            raise InvalidArgument(f"max_tokens must be >= 1, got {max_tokens}", argument="max_tokens")
        if not 0.0 <= temperature <= 2.0:
            raise InvalidArgument(f"temperature must be in [0, 2], got {temperature}", argument="temperature")
        params: dict[str, Any] = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
            ],
        }
        if _REASONING_MODEL.match(self.model):
            params["max_completion_tokens"] = max_tokens
        else:
            params["max_tokens"] = max_tokens
            params["temperature"] = temperature
        if json_mode:
            params["response_format"] = {"type": "json_object"}

        response = call_with_retry(
            lambda: self._client.chat.completions.create(**params),
            provider="OpenAI",
            operation="chat",
            url=self._url,
            config=self.retry,
            secrets=[self._api_key.get_secret_value()],
            key_hint="OPENAI_API_KEY",
        )
        choices = getattr(response, "choices", None) or []
        message = choices[0].message if choices else None
        content = getattr(message, "content", None)
        if not content:
            refusal = getattr(message, "refusal", None)
            reason = f"refused: {refusal}" if refusal else "empty answer"
            raise ProviderResponseError(
                f"OpenAI chat ({self.model}) at {self._url} gave no text ({reason})",
                provider="OpenAI",
                operation="chat",
            )
        return content

    def complete(self, system: str, user: str, *, max_tokens: int = 512, temperature: float = 0.2) -> str:
        """The model's answer as text."""
        return self._create(system, user, max_tokens=max_tokens, temperature=temperature, json_mode=False)

    def complete_json(
        self, system: str, user: str, *, max_tokens: int = 512, temperature: float = 0.0
    ) -> dict[str, Any]:
        """The model's answer parsed as one JSON object (JSON mode; fences tolerated)."""
        # JSON mode requires the word "JSON" in the conversation, or the API rejects the call.
        if "json" not in (system + user).lower():
            system = f"{system}\n\nRespond with a single JSON object."
        text = self._create(system, user, max_tokens=max_tokens, temperature=temperature, json_mode=True)
        return parse_json_object(text, source=f"OpenAI chat ({self.model})")


def parse_json_object(text: str, *, source: str = "LLM") -> dict[str, Any]:
    """Parse an LLM answer into a dict, tolerating code fences and prose around one object."""
    candidate = text.strip()
    fenced = _FENCE.match(candidate)
    if fenced:
        candidate = fenced.group(1)
    try:
        value = json.loads(candidate)
    except json.JSONDecodeError:
        start, end = candidate.find("{"), candidate.rfind("}")
        value = None
        if 0 <= start < end:
            try:
                value = json.loads(candidate[start : end + 1])
            except json.JSONDecodeError:
                value = None
    if not isinstance(value, dict):
        preview = " ".join(text.split())[:120]
        raise ProviderResponseError(
            f"{source} did not return a JSON object: {preview!r}",
            provider=source,
            operation="chat",
        )
    return value
