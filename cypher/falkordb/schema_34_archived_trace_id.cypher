// An archived original is found by its trace's id: the write-ahead archive's MERGE, get,
// rehydrate, forget, and `get` of a memory (whether it has an archived original) seek it here
// instead of reading every ArchivedTrace.
CREATE INDEX FOR (a:ArchivedTrace) ON (a.traceId)
