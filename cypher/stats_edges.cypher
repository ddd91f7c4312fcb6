// Associative edge counts by type, both ends inside the scopes (or everything when null).
MATCH (a:Trace)-[r]->(b:Trace)
WHERE $scopeKeys IS NULL OR (a.scopeKey IN $scopeKeys AND b.scopeKey IN $scopeKeys)
RETURN type(r) AS type, count(r) AS n
