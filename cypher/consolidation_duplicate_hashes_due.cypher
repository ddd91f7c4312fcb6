// Exact duplicates that involve the claimed traces (mergeDueAt 2): for each content hash a claimed
// active trace carries, every active trace of the scope key with that hash. A group whose members
// were all checked at an earlier run, and none written, rewritten or unpinned since, was settled
// then (its duplicates merged, only pinned ones and the survivor left): the full statement,
// consolidation_duplicate_hashes, would find nothing new in it.
MATCH (d:Trace)
WHERE d.scopeKey = $scopeKey AND d.mergeDueAt = 2 AND d.isActive = true
WITH DISTINCT d.contentHash AS hash
MATCH (t:Trace)
WHERE t.scopeKey = $scopeKey AND t.contentHash = hash AND t.isActive = true
WITH hash, collect(t.id) AS ids
WHERE size(ids) > 1
RETURN hash, ids
LIMIT $limit
