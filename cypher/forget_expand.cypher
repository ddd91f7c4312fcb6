// What forgetting memories takes with them: each requested trace the caller sees, whether it
// is pinned, and the traces that are the same memory — its earlier and later versions
// (SUPERSEDES reason 'updated') and the near-duplicates merged into it or it into (reason
// 'merged') — inside the caller's scopes. A correction that superseded it is another memory
// and stays.
UNWIND $ids AS id
MATCH (t:Trace {id: id})
WITH t, t.scopeKey AS scopeKey
WHERE scopeKey IN $scopeKeys
OPTIONAL MATCH p = (t)-[:SUPERSEDES*1..16]-(o:Trace)
WHERE o.scopeKey IN $scopeKeys AND all(r IN relationships(p) WHERE r.reason IN $sameMemory)
WITH t, collect(DISTINCT o.id) AS related
RETURN t.id AS id, coalesce(t.pinned, false) AS pinned, related
