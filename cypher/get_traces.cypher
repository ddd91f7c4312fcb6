// Load traces by id, only those inside the caller's visible scope keys.
UNWIND $ids AS id
MATCH (t:Trace {id: id})
WHERE t.scopeKey IN $scopeKeys
RETURN properties(t) AS trace
