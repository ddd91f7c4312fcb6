"""The facade checks its arguments through the operations' own models: a Python caller of
`AgentMemory` or `MemoryStore` meets the same defaults and the same limits as a caller of
REST, MCP, `cg.connect` or the CLI, and a value past a limit is refused naming the method's
own argument, before anything is read or written."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest

import cogmem_graph as cg
from cogmem_graph.errors import InvalidArgument
from cogmem_graph.operations import OPERATIONS, Operation
from tests.operation_fields import EMPTY, beyond, default_of, same

# The store's method for an owner operation (`export_user` is `store.export`, which without a
# user exports the whole store, so it is not compared).
STORE_METHODS = {"erase": "erase", "users": "users", "repair": "repair", "consolidate": "consolidate",
                 "stats": "stats"}
# An agent operation whose facade method has another name than its client method.
AGENT_METHODS = {"memory_stats": "stats"}
# A method's own name for an operation's argument.
OWN_NAMES = {("pin", "ids"): "trace_ids", ("unpin", "ids"): "trace_ids"}
# A method's own default where the table's is None ("the configured one", or a page size the
# facade shows as its number).
OWN_DEFAULTS = {("list", "limit"): 100}
# A method's parameters that are no argument of its operation.
FACADE_ONLY = {"mood", "batch_size", "reinforce_duplicates", "on_progress", "out", "scope_keys", "traits",
               "trigger"}
REQUIRED = {"trace_id": "m1", "query": "what", "content": "c", "role": "user", "text": "t", "user_id": "u1",
            "trace_ids": ["m1"], "reminder_id": "r1", "items": [{"content": "c"}]}


def facade_method(op: Operation, store: cg.MemoryStore, agent: Any) -> Callable[..., Any] | None:
    if op.role == "owner":
        name = STORE_METHODS.get(op.name)
        return getattr(store, name) if name else None
    name = AGENT_METHODS.get(op.name, op.client)
    return getattr(agent, name, None) if name else None


def parameters(op: Operation, method: Callable[..., Any]) -> dict[str, inspect.Parameter]:
    """The method's parameters by the argument each stands for (its own ones left out)."""
    return {next((arg for (o, arg), own in OWN_NAMES.items() if o == op.name and own == name), name): p
            for name, p in inspect.signature(method).parameters.items()
            if name not in FACADE_ONLY and p.kind is not p.VAR_KEYWORD}


def test_each_facade_method_takes_its_operation_s_defaults_and_refuses_past_its_limits(
        embedded_store: cg.MemoryStore) -> None:
    agent = embedded_store.agent("helper", user_id="u1")
    checked_methods, refused = [], 0
    for op in OPERATIONS.values():
        method = facade_method(op, embedded_store, agent)
        if method is None:
            continue
        checked_methods.append(op.name)
        given = parameters(op, method)
        fields = op.args.model_fields
        assert set(given) <= set(fields), f"{op.name}: the facade takes {set(given) - set(fields)}"
        for name, parameter in given.items():
            declared, own = default_of(fields[name]), OWN_DEFAULTS.get((op.name, name))
            if own is not None:
                assert declared is None and parameter.default == own
            elif declared is EMPTY:
                assert parameter.default is EMPTY, f"{op.name}({name}) has a default; the table requires it"
            elif parameter.default is not EMPTY:
                assert same(parameter.default, declared), f"{op.name}({name}={parameter.default!r}): {declared!r}"
        required = {p.name: REQUIRED[p.name] for p in given.values() if p.default is EMPTY}
        for name, field in fields.items():
            if name not in given:
                continue
            keyword = given[name].name
            for value in [*beyond(field), *([True] if beyond(field) else [])]:
                with pytest.raises(InvalidArgument) as refusal:
                    method(**{**required, keyword: value})
                assert refusal.value.argument == keyword, f"{op.name}({keyword}={value!r}): {refusal.value}"
                refused += 1
    assert {"recall", "context", "multi_hop", "list", "memory", "consolidation_report", "reminders", "remind",
            "erase", "users"} <= set(checked_methods)
    assert refused >= 20  # the limits above were all tried
    assert agent.list().items == [] and agent.reminders() == []  # nothing was written


def test_a_value_of_the_wrong_type_is_refused_as_on_every_surface(embedded_store: cg.MemoryStore) -> None:
    agent = embedded_store.agent("helper", user_id="u1")
    with pytest.raises(InvalidArgument, match="top_k") as refusal:
        agent.retrieve("what", top_k=2.5)
    assert refusal.value.argument == "top_k"
    with pytest.raises(InvalidArgument, match="should be a number, not True or False"):
        agent.list(limit=True)
    with pytest.raises(InvalidArgument) as refusal:
        agent.pin([])
    assert refusal.value.argument == "trace_ids"
    with pytest.raises(InvalidArgument) as refusal:
        agent.list(where={"type": "not-a-type"})
    assert refusal.value.argument == "where.type[0]"
