// Import: trace properties outside the MemoryTrace envelope (written by the pipeline, e.g. a
// deactivation reason), restored after upsert_traces wrote the envelope.
UNWIND $rows AS row
MATCH (t:Trace {id: row.id})
SET t += row.props
RETURN count(t) AS written
