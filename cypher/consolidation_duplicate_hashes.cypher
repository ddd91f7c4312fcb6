// Exact duplicates: active traces of one scope key sharing a content hash.
MATCH (t:Trace)
WHERE t.scopeKey = $scopeKey AND t.isActive = true
WITH t.contentHash AS hash, collect(t.id) AS ids
WHERE size(ids) > 1
RETURN hash, ids
LIMIT $limit
