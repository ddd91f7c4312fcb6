"""Association in the database: spreading activation, Hebbian learning, what a retrieval writes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cogmem_graph.config.graph import ActivationConfig
from cogmem_graph.graph.cypher_store.execution import (
    StatementRunner,
    chunks,
    require_scope_keys,
)
from cogmem_graph.graph.cypher_store.rows import (
    access_rows,
    mechanism_rows,
    pair_rows,
    vitals_of,
)
from cogmem_graph.graph.port import (
    VITALS_LEAD_CHARS,
    AccessUpdate,
    Activation,
    TraceVitals,
)

MAX_ACTIVATION_FRONTIER = 10_000
"""Paths carried into the next hop at most (the strongest): a bound for hub-heavy graphs
whose strong edges would otherwise multiply the paths every hop."""


class ActivationStatements(StatementRunner):
    """Activation spread, co-activation learned, access and mechanism state written."""

    # ------------------------------------------------------------ association in the database

    def spread_activation(
        self, seed_ids: Sequence[str], scope_keys: Sequence[str], config: ActivationConfig | None = None,
        seed_activation: dict[str, float] | None = None,
    ) -> list[Activation]:
        """Activation reached from the seeds. Each seed starts at 1.0, or at its value in
        `seed_activation` (retrieval passes how relevant it found each seed).

        Paths spread hop by hop (one round trip each, at most `max_depth`): a path carries
        its activation x weight x decay per edge, never turns straight back, and stops below
        the threshold; a trace sums the paths reaching it, capped at 1. Seeds pass activation
        on but are not returned. Up to depth 3 these are exactly the simple paths from a seed."""
        keys = require_scope_keys(scope_keys)
        cfg = config or self.config.activation
        seeds = list(dict.fromkeys(seed_ids))[: cfg.max_seeds]
        if not seeds:
            return []
        start = seed_activation or {}
        seed_set = set(seeds)
        frontier: list[dict[str, Any]] = [{"id": s, "prev": "", "activation": float(start.get(s, 1.0))} for s in seeds]
        ceiling = self.config.edges.structural_weight_ceiling
        total: dict[str, float] = {}
        vitals: dict[str, TraceVitals | None] = {}
        strongest: dict[str, float | None] = {}  # upper bound of a trace's other edge weights

        def carried(f: dict[str, Any], weight: float | None) -> bool:
            """Whether an edge of `weight` (None: unknown) keeps the path above the threshold;
            the product is formed as the statement forms it (the same rounding at the boundary)."""
            return weight is None or f["activation"] * weight * cfg.decay_per_hop >= cfg.threshold

        for _ in range(cfg.max_depth):
            # A path can only go on if one more full-weight edge keeps it above the threshold;
            # paths too weak to cross even the heaviest structural edge look at the other types
            # only, and not at all when none of the trace's edges could carry them.
            frontier = [f for f in frontier
                        if carried(f, 1.0) and (carried(f, ceiling) or carried(f, strongest.get(f["id"])))]
            if not frontier:
                break
            if len(frontier) > MAX_ACTIVATION_FRONTIER:
                frontier = sorted(frontier, key=lambda f: -f["activation"])[:MAX_ACTIVATION_FRONTIER]
            rows = self.run("spread_activation_hop", {
                "wide": [f for f in frontier if carried(f, ceiling)],
                "narrow": [f for f in frontier if not carried(f, ceiling)],
                "scopeKeys": keys, "decay": cfg.decay_per_hop, "threshold": cfg.threshold,
                "leadChars": VITALS_LEAD_CHARS})
            for row in rows:
                strongest[row["id"]] = row["strongestLink"]
                if row["id"] not in seed_set:
                    total[row["id"]] = total.get(row["id"], 0.0) + float(row["activation"])
                    if row["id"] not in vitals:
                        vitals[row["id"]] = vitals_of(row) if row["indexed"] is True else None
            frontier = [{"id": r["id"], "prev": r["prev"], "activation": float(r["activation"])} for r in rows]
        ranked = sorted(total.items(), key=lambda item: (-min(1.0, item[1]), item[0]))[: cfg.max_results]
        return [Activation(trace_id, min(1.0, value), vitals[trace_id]) for trace_id, value in ranked]

    def hebbian_update(
        self, co_retrieved: Sequence[Sequence[str]], scope_keys: Sequence[str]
    ) -> dict[tuple[str, str], float]:
        """Strengthen CO_ACTIVATED between every pair retrieved together.

        Several sets may name the same pair; they are folded into one row with a
        count k, so each edge is touched once per call (one round trip)."""
        keys = require_scope_keys(scope_keys)
        rows = pair_rows(co_retrieved)
        if not rows:
            return {}
        out: dict[tuple[str, str], float] = {}
        for chunk in chunks(rows):
            result = self.run(
                "hebbian_update",
                {"rows": chunk, "scopeKeys": keys, "eta": self.config.edges.hebbian_learning_rate, "now": self._now()},
                write=True,
            )
            out.update({(r["a"], r["b"]): float(r["weight"]) for r in result})
        return out

    def record_access(self, updates: Sequence[AccessUpdate], scope_keys: Sequence[str]) -> dict[str, int]:
        keys = require_scope_keys(scope_keys)
        rows = access_rows(updates)
        if not rows:
            return {}
        result = self.run("record_access", {"rows": rows, "scopeKeys": keys, "now": self._now()}, write=True)
        return {r["id"]: int(r["retrievalCount"]) for r in result}

    def after_retrieval(
        self, updates: Sequence[AccessUpdate], co_retrieved: Sequence[str], changes: Sequence[dict[str, Any]],
        scope_keys: Sequence[str], *, wait: bool = True,
    ) -> None:
        """What one retrieval writes, as one statement: `record_access(updates)`,
        `hebbian_update([co_retrieved])` and `write_mechanism_state(changes)` in that order.
        A retrieval returns a handful of traces, far below the batch size of the three.
        `wait=False` returns before the engine confirms it, where the engine allows
        (`_run_unconfirmed`); the store's next statement confirms it and raises if it failed."""
        keys = require_scope_keys(scope_keys)
        pairs = pair_rows([co_retrieved])
        access, mechanism = access_rows(updates), mechanism_rows(changes)
        if not (access or pairs or mechanism):
            return
        params = {"access": access, "pairs": pairs, "changes": mechanism, "scopeKeys": keys,
                  "eta": self.config.edges.hebbian_learning_rate, "now": self._now()}
        if wait:
            self.run("after_retrieval", params, write=True)
        else:
            self._run_unconfirmed(self.cypher.get("after_retrieval"), params, name="after_retrieval")

    def set_strengths(self, strengths: dict[str, float], scope_keys: Sequence[str]) -> int:
        """Store encoding strengths computed by the cognitive core (interference, mechanisms)."""
        keys = require_scope_keys(scope_keys)
        rows = [{"id": i, "encodingStrength": float(s)} for i, s in strengths.items()]
        updated = 0
        for chunk in chunks(rows):
            params = {"rows": chunk, "scopeKeys": keys, "now": self._now()}
            updated += len(self.run("set_strengths", params, write=True))
        return updated

    def write_mechanism_state(self, rows: Sequence[dict[str, Any]], scope_keys: Sequence[str]) -> int:
        """Store what retrieval-time mechanisms changed. Each row: id plus any of valence,
        arousal, dominance, stability, structuredData (JSON string); missing keys stay as they are."""
        keys = require_scope_keys(scope_keys)
        clean = mechanism_rows(rows)
        updated = 0
        for chunk in chunks(clean):
            updated += len(self.run("write_mechanism_state", {"rows": chunk, "scopeKeys": keys, "now": self._now()},
                                    write=True))
        return updated

