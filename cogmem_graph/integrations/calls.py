"""A handle's method called from an event loop without holding it up: an async handle's
(`cg.open_async`, `cg.connect_async`) is awaited, a sync handle's (`cg.open`, `cg.connect`)
runs on a worker thread, since its calls block on the graph, the vectors or the network."""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import Callable
from typing import Any


async def acall(agent: Any, name: str, /, *args: Any, **kwargs: Any) -> Any:
    method = getattr(agent, name)
    if inspect.iscoroutinefunction(method):
        return await method(*args, **kwargs)
    return await asyncio.to_thread(method, *args, **kwargs)


async def in_turn(agent: Any, calls: list[tuple[str, tuple[Any, ...]]]) -> list[Any]:
    """Several calls of one handle, in order: awaited one by one on an async handle, or all on
    one worker thread for a sync one (one hand-off rather than one per call)."""
    if calls and inspect.iscoroutinefunction(getattr(agent, calls[0][0])):
        return [await getattr(agent, name)(*args) for name, args in calls]
    steps: list[Callable[[], Any]] = [functools.partial(getattr(agent, name), *args) for name, args in calls]
    return await asyncio.to_thread(lambda: [step() for step in steps])
