"""A trace's point id is the UUIDv5 of its id, whichever way it is computed."""

from __future__ import annotations

import uuid

from hypothesis import given
from hypothesis import strategies as st

from cogmem_graph.model import new_trace_id
from cogmem_graph.vectors.naming import _ID_NAMESPACE, point_id


@given(st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=60))
def test_point_id_is_the_uuid5_of_the_trace_id(trace_id: str) -> None:
    assert point_id(trace_id) == str(uuid.uuid5(_ID_NAMESPACE, trace_id))


def test_a_minted_trace_id_names_the_same_point_every_time() -> None:
    trace_id = new_trace_id()
    assert point_id(trace_id) == point_id(trace_id) == str(uuid.uuid5(_ID_NAMESPACE, trace_id))
