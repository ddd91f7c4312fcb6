"""The FalkorDB wire helpers write and read exactly what the `falkordb` client does."""

from __future__ import annotations

import pytest
from falkordb.query_result import QueryResult
from hypothesis import given, settings
from hypothesis import strategies as st
from redis import ResponseError

from cogmem_graph.graph.falkordb.wire import params_header, read_compact


def client_header(params):
    """The client's own serialisation (a method that uses nothing of its graph)."""
    from falkordb.graph import Graph

    return Graph._build_params_header(None, params)


scalars = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False), st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=30),
    st.sampled_from(['"', "\\", '\\"', "a\"b\\c", "`", "CYPHER x=1", "\n", "é ü 😀"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.text(alphabet="abcXYZ_019", min_size=1, max_size=8), inner, max_size=4),
    ),
    max_leaves=20,
)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.sampled_from(["rows", "ids", "scopeKeys", "now", "q"]), values, min_size=1))
def test_params_header_is_byte_for_byte_the_clients(params):
    assert params_header(params) == client_header(params)


def test_params_header_edge_cases_match_the_client():
    for params in ({"rows": []}, {"s": ""}, {"t": ("a", 1)}, {"m": {}}, {"x": 1.5e300}, {"b": [True, False]}):
        assert params_header(params) == client_header(params)
    assert params_header(None) == ""
    with pytest.raises(ValueError, match="parameter name"):
        params_header({"": 1})
    with pytest.raises(ValueError, match="parameter name"):
        params_header({"a`b": 1})


class _Graph:
    """What the client's parser needs of a graph for scalar replies: nothing."""


def compact(header, rows):
    return [[[1, name] for name in header], rows, ["Cached execution: 0"]]


def test_read_compact_matches_the_clients_parser_for_scalars_lists_and_maps():
    row = [[2, "mt_1"], [3, 42], [5, "0.25"], [4, "true"], [4, "false"], [1, None],
           [6, [[2, "a"], [2, "b"]]], [10, ["k", [3, 1], "n", [1, None], "l", [6, [[5, "1.5"]]]]]]
    reply = compact(["s", "i", "d", "t", "f", "n", "l", "m"], [row])
    ours = read_compact(reply)
    theirs = QueryResult(_Graph(), reply)
    assert ours == [dict(zip(["s", "i", "d", "t", "f", "n", "l", "m"],
                             [[dict(v) if isinstance(v, dict) else v for v in theirs.result_set[0]]][0], strict=True))]
    assert ours[0] == {"s": "mt_1", "i": 42, "d": 0.25, "t": True, "f": False, "n": None,
                       "l": ["a", "b"], "m": {"k": 1, "n": None, "l": [1.5]}}


def test_read_compact_leaves_graph_objects_to_the_client_and_raises_server_errors():
    node = [8, [1, [0], [[0, 2, "x"]]]]
    assert read_compact(compact(["n"], [[node]])) is None
    assert read_compact([["Nodes created: 1"]]) == []  # statistics only
    with pytest.raises(ResponseError, match="boom"):
        read_compact([[[1, "a"]], [], ResponseError("boom")])
