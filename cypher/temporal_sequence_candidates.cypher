// TEMPORAL_SEQUENCE, step 1 of 2: the given traces grouped by sequence (thread or source)
// (`own` rows), and for each sequence every visible active trace inside the group's time
// span, from the window before its earliest trace to its latest (candidate rows). The
// caller picks each trace's predecessor: one scan per sequence and batch, where one MATCH
// per trace scanned the whole sequence once for every new trace.
// Two parts, because grouping the candidates by the batch's id and time lists made the
// engine hash those lists once per candidate (16 of 19 ms for 500 traces).
UNWIND $ids AS id
MATCH (t:Trace {id: id})
WHERE t.sequenceKey IS NOT NULL
RETURN t.sequenceKey AS key, true AS own, collect(t.id) AS ids, collect(t.createdAt) AS times
UNION ALL
UNWIND $ids AS id
MATCH (t:Trace {id: id})
WHERE t.sequenceKey IS NOT NULL
WITH t.sequenceKey AS key, min(t.createdAt) AS earliest, max(t.createdAt) AS latest
MATCH (p:Trace {sequenceKey: key})
WHERE p.isActive = true AND p.scopeKey IN $scopeKeys
  AND p.createdAt >= earliest - $windowMs AND p.createdAt <= latest
// parallel lists of scalars: collecting maps costs the engine several times more
RETURN key, false AS own, collect(p.id) AS ids, collect(p.createdAt) AS times
