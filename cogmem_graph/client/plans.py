"""A remote handle's method written once, run by the sync and by the async client.

A method is a plan: a generator that yields each request it makes (a `Send`), gets the
server's answer back, and returns the method's result. `@remote` makes the sync method
from it (each request through `self.call`); `awaitable` makes the async one (each
through `await self.call`). Building the request and reading the answer are shared
too (`client/wire.py`), so only the transport differs between the two clients.
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass
from typing import Any, Concatenate, ParamSpec, TextIO, TypeVar

__all__ = ["Plan", "Send", "awaitable", "plans_of", "remote"]

P = ParamSpec("P")
R = TypeVar("R")


@dataclass(frozen=True)
class Send:
    """One request a method makes: the operation's name, its arguments, and the text file an
    operation answering JSON Lines writes them to (then the answer is the last record)."""

    op: str
    args: Mapping[str, Any] | None = None
    out: TextIO | None = None


Plan = Generator[Send, Any, R]
_PLAN_RESULT = re.compile(r"^Plan\[(?P<result>.+)\]$")


def remote(plan: Callable[Concatenate[Any, P], Plan[R]]) -> Callable[Concatenate[Any, P], R]:
    """The sync method running `plan`; it keeps the plan (`plans_of`) for the async client."""

    @functools.wraps(plan)
    def method(self: Any, /, *args: P.args, **kwargs: P.kwargs) -> R:
        steps = plan(self, *args, **kwargs)
        answer = None
        while True:
            try:
                send = steps.send(answer)
            except StopIteration as done:
                result: R = done.value  # what the plan returned
                return result
            answer = self.call(send.op, send.args, out=send.out)

    method.__signature__ = _result_signature(plan)  # type: ignore[attr-defined]  # read by inspect.signature
    method.__remote_plan__ = plan  # type: ignore[attr-defined]  # read by plans_of
    return method


def awaitable(plan: Callable[..., Plan[Any]]) -> Callable[..., Any]:
    """The async method running `plan`, each request through `await self.call`."""

    @functools.wraps(plan)
    async def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        steps = plan(self, *args, **kwargs)
        answer = None
        while True:
            try:
                send = steps.send(answer)
            except StopIteration as done:
                return done.value
            answer = await self.call(send.op, send.args, out=send.out)

    method.__signature__ = _result_signature(plan)  # type: ignore[attr-defined]  # read by inspect.signature
    return method


def plans_of(cls: type) -> dict[str, Callable[..., Plan[Any]]]:
    """The plans of the `@remote` methods of `cls` and its bases, by name."""
    found: dict[str, Callable[..., Plan[Any]]] = {}
    for klass in reversed(cls.__mro__[:-1]):
        for name, member in vars(klass).items():
            plan = getattr(member, "__remote_plan__", None)
            if plan is not None:
                found[name] = plan
    return found


def _result_signature(plan: Callable[..., Any]) -> inspect.Signature:
    """The plan's signature, returning what the plan returns (`Plan[X]` shown as `X`)."""
    signature = inspect.signature(plan)
    result = signature.return_annotation
    match = _PLAN_RESULT.match(result) if isinstance(result, str) else None
    return signature.replace(return_annotation=match["result"]) if match else signature
