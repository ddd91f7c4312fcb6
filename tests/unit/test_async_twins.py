"""The async API mirrors the sync one: every public method of the store, the agent handle and
the remote handle has a twin of the same name and signature in the async class, awaitable
unless it is one of the few that touch no backend (each named in the class's module)."""

from __future__ import annotations

import inspect

import pytest

import cogmem_graph as cg
from cogmem_graph.api import async_agent, async_store
from cogmem_graph.api.agent import AgentMemory
from cogmem_graph.api.offload import checked_workers, public_methods
from cogmem_graph.api.store import MemoryStore
from cogmem_graph.client.agent import RemoteAgent
from cogmem_graph.client.aio import AsyncRemoteAgent

PAIRS = [
    (MemoryStore, cg.AsyncMemoryStore, async_store.PLAIN),
    (AgentMemory, cg.AsyncAgentMemory, async_agent.PLAIN),
    (RemoteAgent, AsyncRemoteAgent, frozenset()),
]


def _twins() -> list[tuple[type, type, str, bool]]:
    return [(sync_cls, async_cls, name, name in plain)
            for sync_cls, async_cls, plain in PAIRS for name in sorted(public_methods(sync_cls))]


@pytest.mark.parametrize(("sync_cls", "async_cls", "name", "plain"), _twins(),
                         ids=lambda v: v.__name__ if isinstance(v, type) else str(v))
def test_every_public_sync_method_has_an_async_twin(sync_cls: type, async_cls: type, name: str, plain: bool) -> None:
    twin = getattr(async_cls, name, None)
    assert callable(twin), f"{async_cls.__name__} has no {name}: every method of {sync_cls.__name__} needs a twin"
    assert inspect.iscoroutinefunction(twin) is not plain, (
        f"{async_cls.__name__}.{name} must be {'a plain method' if plain else 'awaitable'}")
    sync_parameters = list(inspect.signature(getattr(sync_cls, name)).parameters.values())
    twin_parameters = list(inspect.signature(twin).parameters.values())
    if name == "encode_event":  # written by hand: the witnesses may be async handles, the options pass through
        assert [p.name for p in twin_parameters[:3]] == [p.name for p in sync_parameters[:3]]
    else:
        assert [(p.name, p.kind, p.default) for p in twin_parameters] == [
            (p.name, p.kind, p.default) for p in sync_parameters], f"{name} takes the sync method's arguments"
    if hasattr(twin, "__wrapped__"):  # made from the sync method: its docstring, for help()
        assert twin.__doc__ == getattr(sync_cls, name).__doc__
    else:
        assert twin.__doc__, f"{async_cls.__name__}.{name}, written by hand, says what it does"


def test_the_plain_and_one_at_a_time_methods_name_methods_that_exist() -> None:
    assert set(public_methods(MemoryStore)) >= async_store.PLAIN
    assert set(public_methods(AgentMemory)) >= async_agent.PLAIN
    assert set(public_methods(AgentMemory)) >= async_agent.SERIALISED


def test_open_async_takes_the_arguments_of_open_and_workers() -> None:
    sync = inspect.signature(cg.open).parameters
    twin = inspect.signature(cg.open_async).parameters
    assert [(p.name, p.kind, p.default) for p in twin.values() if p.name != "workers"] == [
        (p.name, p.kind, p.default) for p in sync.values()]
    assert twin["workers"].default is None


@pytest.mark.parametrize("workers", [0, -1, 257, 2.0, True, "4"])
def test_a_bad_worker_count_is_refused_naming_the_argument(workers: object) -> None:
    with pytest.raises(ValueError, match="workers must be an integer in"):
        checked_workers(workers)
    with pytest.raises(ValueError, match="workers must be an integer in"):
        cg.open_async(workers=workers)  # type: ignore[arg-type]  # refused before anything opens


def test_the_async_names_resolve_without_importing_asyncio_into_a_bare_import() -> None:
    """`import cogmem_graph` stays as light as it was: the async API loads on first use."""
    import subprocess
    import sys

    probe = ("import sys\nimport cogmem_graph\n"
             "print(sorted(m for m in sys.modules if m.split('.')[0] in ('asyncio', 'httpx', 'concurrent', "
             "'cogmem_graph') and m != 'cogmem_graph'))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
