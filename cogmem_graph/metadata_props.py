"""How a trace node carries its metadata for filters to read.

`metadata` is one JSON string on the node; Cypher cannot look inside it, so the node also
carries derived lists (`metaPairs`, and numeric and text values by key). The model writes
them (`MemoryTrace.to_graph_props`), an update rewrites them, and the filter model
(`filters.py`) builds its parameters in the same form.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

PAIR_SEPARATOR = "\u001f"
"""Between a metadata key and its JSON value in a trace's `metaPairs` (a unit separator:
no key a caller can write contains it)."""


def flatten_metadata(metadata: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """`{"billing": {"tier": "pro"}}` as `{"billing.tier": "pro"}`: the paths filters name."""
    flat: dict[str, Any] = {}
    for key, value in metadata.items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(flatten_metadata(value, f"{path}."))
        else:
            flat[path] = value
    return flat


def _scalar_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def metadata_pair(key: str, value: Any) -> str:
    return f"{key}{PAIR_SEPARATOR}{_scalar_json(value)}"


def metadata_graph_props(metadata: Mapping[str, Any]) -> dict[str, list]:
    """The derived properties a trace node carries so Cypher can filter on its metadata
    (`metadata` itself is one JSON string): `metaPairs` for equality, numeric and text
    values by key for ranges. A list value counts each of its items."""
    pairs: list[str] = []
    num_keys: list[str] = []
    num_values: list[float] = []
    text_keys: list[str] = []
    text_values: list[str] = []
    for key, value in flatten_metadata(metadata).items():
        for item in value if isinstance(value, list) else [value]:
            if item is None:
                continue
            pairs.append(metadata_pair(key, item))
            if isinstance(item, bool):
                continue
            if isinstance(item, int | float):
                num_keys.append(key)
                num_values.append(float(item))
            elif isinstance(item, str):
                text_keys.append(key)
                text_values.append(item)
    return {"metaPairs": pairs, "metaNumKeys": num_keys, "metaNumValues": num_values,
            "metaTextKeys": text_keys, "metaTextValues": text_values}
