// Import: trace properties outside the MemoryTrace envelope (written by the pipeline, e.g. a
// deactivation reason), restored after upsert_traces wrote the envelope; the decay sweep's
// schedule is this store's, so the trace is due for it, and for the exact-duplicate check; the
// confidence clock follows the restored sourceDecayAt.
UNWIND $rows AS row
MATCH (t:Trace {id: row.id})
SET t += row.props, t.sweepDueAt = 1, t.mergeDueAt = 1
WITH t
SET t.confidenceClock = coalesce(t.sourceDecayAt, t.recordedAt)
RETURN count(t) AS written
