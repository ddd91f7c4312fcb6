// Associative edges touching the given traces, both ends inside the visible scopes.
UNWIND $ids AS id
MATCH (a:Trace {id: id})-[r:SHARED_ENTITY|TEMPORAL_SEQUENCE|SAME_TOPIC|CONTRADICTS|SUPERSEDES|CAUSED_BY|CO_ACTIVATED]-(b:Trace)
WHERE a.scopeKey IN $scopeKeys AND b.scopeKey IN $scopeKeys
RETURN DISTINCT startNode(r).id AS src, endNode(r).id AS dst, type(r) AS type, r.weight AS weight
