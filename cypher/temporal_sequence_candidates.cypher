// TEMPORAL_SEQUENCE, step 1 of 2: the given traces grouped by sequence (thread or source),
// each group with every visible active trace of that sequence inside its time span (from
// the window before the earliest to the latest). The caller picks each trace's predecessor:
// one scan per sequence and batch, where one MATCH per trace scanned the whole sequence
// once for every new trace.
UNWIND $ids AS id
MATCH (t:Trace {id: id})
WHERE t.sequenceKey IS NOT NULL
WITH t.sequenceKey AS key, collect(t.id) AS ids, collect(t.createdAt) AS times,
     min(t.createdAt) AS earliest, max(t.createdAt) AS latest
MATCH (p:Trace {sequenceKey: key})
WHERE p.isActive = true AND p.scopeKey IN $scopeKeys
  AND p.createdAt >= earliest - $windowMs AND p.createdAt <= latest
// parallel lists of scalars: collecting maps costs the engine several times more
RETURN key, ids, times, collect(p.id) AS candidateIds, collect(p.createdAt) AS candidateTimes
