// Erase: a page of the trace ids in some scopes (the caller deletes them, then asks again).
MATCH (t:Trace)
WHERE t.scopeKey IN $scopeKeys
RETURN t.id AS id
LIMIT $limit
