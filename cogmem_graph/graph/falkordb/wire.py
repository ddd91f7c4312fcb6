"""FalkorDB's wire format, both ways, for the values our statements use.

Parameters: a statement's parameters travel as a `CYPHER name=value …` header in
front of its text. `params_header` writes exactly what the `falkordb` client's own
`_build_params_header` writes (a test checks it on generated values), with one
type test per value instead of a chain of isinstance calls: a batch of 500 new
traces is ~170k values, and serialising them was a tenth of `encode_many`. Values
of other types are handed to the client's `stringify_param_value`.

Replies: read straight into plain Python values.

The `falkordb` client turns every reply into `OrderedDict`s and typed objects through
a generic per-value dispatch, and the adapter then converted those into plain values
again; for the hundred traces a retrieval loads that was most of the load's cost. Our
statements return only scalars, lists and maps, so those are read here in one pass.
Any other type (nodes, edges, paths, points, temporal values) makes `read_compact`
return None and the adapter falls back to the client's own parser.

Compact format (GRAPH.QUERY … --compact): `[header, rows, stats]`, each header entry
`[column type, name]`, each cell `[scalar type, value]` with types 1 null, 2 string,
3 integer, 4 boolean ("true"/"false"), 5 double (as text), 6 array (of cells),
10 map (alternating key, cell).
"""

from __future__ import annotations

from typing import Any

from falkordb.helpers import stringify_param_value
from redis import ResponseError

from cogmem_graph.errors import InvalidArgument


def _param(value: Any) -> str:
    kind = type(value)
    if kind is str:
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"' if value else '""'
    if kind is float or kind is int or kind is bool:
        return str(value)
    if value is None:
        return "null"
    if kind is list or kind is tuple:
        return "[" + ",".join([_param(v) for v in value]) + "]"
    if kind is dict and all(type(k) is str and k and "`" not in k for k in value):
        return "{" + ",".join([f"`{k}`:{_param(v)}" for k, v in value.items()]) + "}"
    return stringify_param_value(value)  # str subclasses, bytes, odd keys: the client's rules


def params_header(params: dict[str, Any]) -> str:
    """`CYPHER `a`=1 `b`="x" ` for a statement's parameters ("" for None, as the client)."""
    if params is None:
        return ""
    for key in params:
        if type(key) is not str or not key or "`" in key:
            raise InvalidArgument(f"Cypher parameter name must be a non-empty string without backticks: {key!r}",
                                  argument="params")
    return "CYPHER " + "".join([f"`{key}`={_param(value)} " for key, value in params.items()])


_NULL, _STRING, _INTEGER, _BOOLEAN, _DOUBLE, _ARRAY, _MAP = 1, 2, 3, 4, 5, 6, 10


class _Unsupported(Exception):
    """A value of a type this reader leaves to the client. Internal: caught in this module, which
    then leaves the whole reply to the client, so it is not under `CogmemError`."""


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _cell(cell: list) -> Any:
    kind, value = cell
    if kind == _STRING:
        return value.decode() if type(value) is bytes else value
    if kind == _INTEGER:
        return int(value)
    if kind == _DOUBLE:
        return float(value)
    if kind == _NULL:
        return None
    if kind == _BOOLEAN:
        return _text(value) == "true"
    if kind == _ARRAY:
        return [_cell(c) for c in value]
    if kind == _MAP:
        return _map(value)
    raise _Unsupported(kind)


def _map(value: list) -> dict[str, Any]:
    """A map's entries, taken two by two; strings and integers (most of a trace's properties)
    are read inline, since a function call per value was most of the cost."""
    out: dict[str, Any] = {}
    entries = iter(value)
    for key, cell in zip(entries, entries, strict=True):
        if type(key) is bytes:
            key = key.decode()
        kind, item = cell
        if kind == _INTEGER or (kind == _STRING and type(item) is not bytes):
            out[key] = item
        else:
            out[key] = _cell(cell)
    return out


def raise_errors(response: list) -> None:
    """The server reports a failed statement as an error element, first or last."""
    if response and isinstance(response[0], ResponseError):
        raise response[0]
    if response and isinstance(response[-1], ResponseError):
        raise response[-1]


def read_compact(response: list) -> list[dict[str, Any]] | None:
    """Rows as plain dicts (column name -> value), or None when a value needs the client."""
    raise_errors(response)
    if len(response) < 3:  # statistics only: a statement without RETURN
        return []
    names = [_text(column[1]) for column in response[0]]
    try:
        return [dict(zip(names, [_cell(c) for c in row], strict=True)) for row in response[1]]
    except _Unsupported:
        return None
