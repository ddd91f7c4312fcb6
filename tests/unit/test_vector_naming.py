"""A trace's point id: the UUIDv5 of its id, or a minted id's own UUID, read back from a search's hit."""

from __future__ import annotations

import uuid

from hypothesis import given
from hypothesis import strategies as st

from cogmem_graph.model import new_trace_id
from cogmem_graph.vectors.naming import _ID_NAMESPACE, own_point_id, point_id, trace_id_of_point


@given(st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=60))
def test_point_id_is_the_uuid5_of_the_trace_id(trace_id: str) -> None:
    assert point_id(trace_id) == str(uuid.uuid5(_ID_NAMESPACE, trace_id))


def test_a_minted_trace_id_names_the_same_point_every_time() -> None:
    trace_id = new_trace_id()
    assert point_id(trace_id) == point_id(trace_id) == str(uuid.uuid5(_ID_NAMESPACE, trace_id))


@given(st.uuids(version=4))
def test_a_minted_trace_id_is_its_own_point_id_and_reads_back(value: uuid.UUID) -> None:
    trace_id = "mt_" + value.hex
    assert own_point_id(trace_id) == str(value)
    assert trace_id_of_point(value) == trace_id_of_point(str(value)) == trace_id


@given(st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=60))
def test_other_ids_are_hashed_and_never_read_as_a_minted_one(trace_id: str) -> None:
    if trace_id.startswith("mt_") and len(trace_id) == 35:
        return  # a minted-looking id is the test above's
    assert own_point_id(trace_id) == point_id(trace_id)
    assert trace_id_of_point(own_point_id(trace_id)) is None


def test_a_lookalike_that_is_no_uuid4_is_hashed() -> None:
    for lookalike in ("mt_" + "0" * 32, "mt_" + new_trace_id()[3:].upper(), "mt_" + uuid.uuid1().hex):
        assert own_point_id(lookalike) == point_id(lookalike)
        assert trace_id_of_point(own_point_id(lookalike)) is None


def _reference_trace_id_of_point(point: uuid.UUID | str) -> str | None:
    value = point if isinstance(point, uuid.UUID) else uuid.UUID(str(point))
    return "mt_" + value.hex if value.version == 4 else None


@given(st.uuids(), st.sampled_from([str, lambda u: str(u).upper(), lambda u: u.hex, lambda u: u]))
def test_a_point_id_is_read_back_as_its_uuid_says_in_any_spelling(value: uuid.UUID, spell) -> None:
    # The engine hands back UUID objects, tests and callers may pass text: both name what the UUID names.
    assert trace_id_of_point(spell(value)) == _reference_trace_id_of_point(value)


@given(st.binary(min_size=16, max_size=16))
def test_any_sixteen_bytes_spelled_as_a_uuid_read_back_as_the_uuid_says(raw: bytes) -> None:
    # The version and variant bits are read by hand: any other version or variant names no trace.
    value = uuid.UUID(bytes=raw)
    assert trace_id_of_point(value) == trace_id_of_point(str(value)) == _reference_trace_id_of_point(value)
