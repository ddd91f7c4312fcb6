"""An Agents SDK `Model` that plays a script: each call answers with the next turn (a tool
call or a message), whatever it was asked, and notes what it was given (instructions,
input, tools). No network."""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from typing import Any

from agents import Model, ModelResponse, Usage
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

_ids = itertools.count(1)


@dataclass
class Seen:
    instructions: str | None
    input: list[Any]
    tools: list[str]


class ScriptedModel(Model):
    def __init__(self, turns: Iterable[Any]) -> None:
        self.turns = iter(list(turns))
        self.seen: list[Seen] = []

    async def get_response(self, system_instructions: str | None, input: Any, model_settings: Any, tools: list[Any],
                           output_schema: Any, handoffs: Any, tracing: Any, **kwargs: Any) -> ModelResponse:
        items = [{"role": "user", "content": input}] if isinstance(input, str) else list(input)
        self.seen.append(Seen(system_instructions, items, [tool.name for tool in tools]))
        return ModelResponse(output=[next(self.turns)], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError("the scripted model does not stream")


def calls(name: str, **args: Any) -> ResponseFunctionToolCall:
    """The model's turn that calls tool `name` with `args`."""
    n = next(_ids)
    return ResponseFunctionToolCall(type="function_call", name=name, arguments=json.dumps(args), call_id=f"call_{n}",
                                    id=f"fc_{n}", status="completed")


def says(text: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(id=f"msg_{next(_ids)}", type="message", role="assistant", status="completed",
                                 content=[ResponseOutputText(type="output_text", text=text, annotations=[])])
