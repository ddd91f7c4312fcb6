"""A chat model that plays a script: each call returns the next message (tool calls
included), whatever it was asked, and `bind_tools` leaves it as it is. No network."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage


class ScriptedChatModel(GenericFakeChatModel):
    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:
        return self


def scripted(turns: Iterable[AIMessage]) -> ScriptedChatModel:
    return ScriptedChatModel(messages=iter(list(turns)))


_ids = itertools.count(1)


def calls(name: str, **args: Any) -> AIMessage:
    """The model's turn that calls tool `name` with `args`."""
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": f"call_{next(_ids)}"}])


def says(text: str) -> AIMessage:
    return AIMessage(content=text)
