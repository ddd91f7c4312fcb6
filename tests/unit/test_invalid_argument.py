"""`InvalidArgument`: the package's refusal of a caller's argument names it (`.argument`) and is
still a ValueError, whether the facade checks the argument itself or a model's validator does."""

from __future__ import annotations

import pytest

import cogmem_graph as cg
from cogmem_graph.filters import as_filter
from cogmem_graph.write.request import as_request


def test_a_filter_field_is_named_by_its_path() -> None:
    with pytest.raises(cg.InvalidArgument) as refused:
        as_filter({"created_after": "yesterday"})
    assert refused.value.argument == "where.created_after"
    assert isinstance(refused.value, ValueError) and isinstance(refused.value, cg.CogmemError)
    assert str(refused.value).startswith("where is not a valid filter: where.created_after")


def test_an_encode_item_is_named_by_its_index_and_field() -> None:
    with pytest.raises(ValueError) as refused:  # `except ValueError` still catches it
        as_request({"content": "x", "confidence": 2}, 3)
    assert isinstance(refused.value, cg.InvalidArgument) and refused.value.argument == "items[3].confidence"
    with pytest.raises(cg.InvalidArgument) as kind:
        as_request("not a mapping", 0)
    assert kind.value.argument == "items[0]"


def test_the_message_always_names_the_argument() -> None:
    assert str(cg.InvalidArgument("must be positive", argument="top_k")) == "top_k: must be positive"
    assert str(cg.InvalidArgument("top_k must be positive", argument="top_k")) == "top_k must be positive"


def test_an_identity_the_store_refuses_names_its_field() -> None:
    from cogmem_graph.identity import AgentIdentity

    with pytest.raises(cg.InvalidArgument) as refused:
        AgentIdentity(agent_id="a1", user_id="u1").scope_id("thread")
    assert refused.value.argument == "scope" and "thread_id" in str(refused.value)
