// Create or update traces of one memory type from full property rows, one round trip per batch.
// The type label (Episodic, Semantic, ...) comes from the MemoryType enum and mirrors t.type,
// so Neo4j Browser colours each kind. Creating the node with both labels keeps ingest fast.
// strongestLink bounds the weight of the trace's non-structural associative edges (see
// spread_activation_hop); a new trace has none yet, an existing one keeps its bound. A trace
// written is due for consolidation's decay sweep (sweepDueAt 1, long past: see consolidation_sweep_schedule)
// and for its exact-duplicate check (mergeDueAt 1: consolidation_merge_due_claim); its
// confidenceClock is when source-confidence decay last touched it, else when it was recorded
// (sourceDecayAt is the pipeline's, never in a row).
UNWIND $rows AS row
MERGE (t:Trace:__TYPE_LABEL__ {id: row.id})
SET t += row, t.strongestLink = coalesce(t.strongestLink, 0.0), t.sweepDueAt = 1, t.mergeDueAt = 1,
    t.confidenceClock = coalesce(t.sourceDecayAt, row.recordedAt)
RETURN count(t) AS written
