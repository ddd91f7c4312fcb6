// Import: trace properties outside the MemoryTrace envelope (written by the pipeline, e.g. a
// deactivation reason), restored after upsert_traces wrote the envelope; the decay sweep's
// schedule is this store's, so the trace is due for it.
UNWIND $rows AS row
MATCH (t:Trace {id: row.id})
SET t += row.props, t.sweepDueAt = 1
RETURN count(t) AS written
