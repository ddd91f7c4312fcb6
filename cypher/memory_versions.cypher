// Every version of a memory the caller sees: the traces linked to it by update
// SUPERSEDES edges (reason 'updated'), in either direction, with when and by whom each was
// written.
MATCH (t:Trace {id: $id})
WITH t, t.scopeKey AS scopeKey
WHERE scopeKey IN $scopeKeys
OPTIONAL MATCH p = (t)-[:SUPERSEDES*1..64]-(o:Trace)
WHERE o.scopeKey IN $scopeKeys AND all(r IN relationships(p) WHERE r.reason = 'updated')
WITH t, collect(DISTINCT o) AS others
UNWIND [t] + others AS v
RETURN DISTINCT properties(v) AS trace
