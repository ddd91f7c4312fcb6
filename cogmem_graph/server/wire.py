"""The facade's results as JSON: dataclasses and pydantic models, recursively.

One converter for every result type, so a field added to a result reaches REST and MCP
clients without a second place to change."""

from __future__ import annotations

import dataclasses
import math
from enum import Enum
from typing import Any

from pydantic import BaseModel


def to_jsonable(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [to_jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def scored_json(item: Any) -> dict[str, Any]:
    """A retrieved memory: the trace, its score, the signals, how it was found and how its
    score was composed (`ScoreComposition`, null where the strategy composes none)."""
    return {"trace": to_jsonable(item.trace), "score": item.score,
            "signals": dict(item.signals), "sources": list(item.sources),
            "composition": to_jsonable(getattr(item, "composition", None))}


def retrieval_json(result: Any) -> dict[str, Any]:
    return {"query": result.query, "strategy": result.strategy, "intent": result.intent,
            "parts": list(result.parts), "gated": result.gated, "as_of": result.as_of, "timeline": result.timeline,
            "traces": [scored_json(t) for t in result.traces],
            "partial": [scored_json(t) for t in result.partial],
            "feeling_of_knowing": to_jsonable(result.feeling_of_knowing)}


def multi_hop_json(result: Any) -> dict[str, Any]:
    data = to_jsonable(result)
    for item, raw in zip(data["traces"], result.traces, strict=True):
        item["evidence"] = str(raw.path)  # the path as a person reads it
    return data


def page_json(page: Any) -> dict[str, Any]:
    """A page of `list`: its records (each the trace, its state, version, ...) and the next cursor."""
    return {"items": [to_jsonable(r) for r in page.items], "cursor": page.cursor}
