"""Rows to records and records to rows: the shaping shared by several aggregates."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from typing import Any

from cogmem_graph.graph.port import (
    AccessUpdate,
    TraceVitals,
)
from cogmem_graph.graph.rows import SubgraphEntity


def vitals_of(row: dict[str, Any]) -> TraceVitals:
    """Ranking fields from a row of `trace_vitals` or of an activation hop."""
    return TraceVitals(row["id"], float(row["encodingStrength"]), float(row["stability"]), int(row["lastAccessedAt"]),
                       float(row["valence"]), float(row["confidence"]), int(row["createdAt"]),
                       tuple(row["entities"] or ()), tuple(row["tags"] or ()), dormant=bool(row.get("dormant")),
                       category=row.get("category") or "other", pinned=bool(row.get("pinned")),
                       recorded_at=int_or_none(row.get("recordedAt")), valid_from=int_or_none(row.get("validFrom")),
                       valid_until=int_or_none(row.get("validUntil")), lead=row.get("lead"),
                       lead_is_whole=row.get("leadIsWhole") is True)


def int_or_none(value: Any) -> int | None:
    return None if value is None else int(value)


def pair_rows(co_retrieved: Sequence[Sequence[str]]) -> list[dict[str, Any]]:
    """Hebbian rows: each pair retrieved together once (lower id first) with how many of
    the sets named it (k), so each edge is touched once per statement."""
    pairs: Counter[tuple[str, str]] = Counter()
    for group in co_retrieved:
        pairs.update(itertools.combinations(sorted(set(group)), 2))
    return [{"a": a, "b": b, "k": k} for (a, b), k in pairs.items()]


def access_rows(updates: Sequence[AccessUpdate]) -> list[dict[str, Any]]:
    """Spaced-repetition values per trace, the last update of a trace winning."""
    return [
        {
            "id": u.trace_id,
            "lastAccessedAt": u.last_accessed_at,
            "stability": u.stability,
            "reinforcementInterval": u.reinforcement_interval,
            "nextReinforcementAt": u.next_reinforcement_at,
            "encodingStrength": u.encoding_strength,
        }
        for u in {u.trace_id: u for u in updates}.values()
    ]


MECHANISM_FIELDS = ("valence", "arousal", "dominance", "stability", "structuredData")


def mechanism_rows(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each row with every mechanism field present (null: leave the property as it is)."""
    return [{"id": r["id"], **{f: r.get(f) for f in MECHANISM_FIELDS}} for r in rows]


def entities_as_mentioned(mentions: list[dict[str, Any]]) -> list[SubgraphEntity]:
    """One entry per entity key from the visible mentions of it: the first spelling in order,
    its kind, and when the caller's memories first mentioned it (links written before
    mentions carried these have none: the key stands in for the name)."""
    by_key: dict[str, SubgraphEntity] = {}
    for m in sorted(mentions, key=lambda m: (str(m["key"]), m.get("createdAt") or 0, str(m.get("name") or ""))):
        entry = by_key.setdefault(m["key"], SubgraphEntity(key=m["key"], name=m.get("name") or m["key"],
                                                           kind=m.get("kind") or "thing"))
        if m.get("createdAt") is not None and "createdAt" not in entry:
            entry["createdAt"] = m["createdAt"]
    return list(by_key.values())
