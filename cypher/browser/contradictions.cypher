// Contradictions and how they were settled: CONTRADICTS pairs, and which trace SUPERSEDES which.
// :param scopeKeys => ['user:acme/u1']
MATCH (a:Trace)-[r:CONTRADICTS|SUPERSEDES]->(b:Trace)
WHERE a.scopeKey IN $scopeKeys AND b.scopeKey IN $scopeKeys
RETURN a, r, b
LIMIT 100
