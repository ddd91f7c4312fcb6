// An archived original is found by its trace's id: the write-ahead archive's MERGE, get,
// rehydrate, forget, and `get` of a memory (whether it has an archived original) seek it here
// instead of reading every ArchivedTrace.
CREATE INDEX archived_trace_id IF NOT EXISTS FOR (a:ArchivedTrace) ON (a.traceId)
