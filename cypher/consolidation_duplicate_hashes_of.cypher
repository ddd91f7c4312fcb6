// Exact duplicates of the given traces: for each content hash one of $ids carries, every active
// trace of the scope key with that hash, when there are two or more. The merge step asks it for
// the traces its near-duplicate pairs join, so a settled group such a pair reaches is seen whole.
UNWIND $ids AS id
MATCH (d:Trace {id: id})
WITH d, d.scopeKey AS scopeKey
WHERE scopeKey = $scopeKey AND d.isActive = true
WITH DISTINCT d.contentHash AS hash
MATCH (t:Trace)
WHERE t.scopeKey = $scopeKey AND t.contentHash = hash AND t.isActive = true
WITH hash, collect(t.id) AS ids
WHERE size(ids) > 1
RETURN hash, ids
