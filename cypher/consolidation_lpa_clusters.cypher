// Cluster fallback, result: communities of the scope key with at least $minSize traces that
// are not yet instances of a schema, largest first.
MATCH (t:Trace)
WHERE t.scopeKey = $scopeKey AND t.isActive = true AND t.clusterLabel IS NOT NULL
  AND NOT (t)-[:SCHEMA_INSTANCE]->(:Schema)
WITH t.clusterLabel AS community, collect(t.id) AS members
WHERE size(members) >= $minSize
RETURN $scopeKey AS scopeKey, community, members
ORDER BY size(members) DESC, community
LIMIT $limit
