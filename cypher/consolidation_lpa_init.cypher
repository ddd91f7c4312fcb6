// Cluster fallback (pure Cypher label propagation), step 0: every active trace of the scope key
// with at least one clustering edge starts in its own community; the others lose any old label.
MATCH (t:Trace)
WHERE t.scopeKey = $scopeKey AND t.isActive = true
OPTIONAL MATCH (t)-[r:SHARED_ENTITY|SAME_TOPIC|CAUSED_BY]-(n:Trace)
WHERE n.scopeKey = $scopeKey AND n.isActive = true AND r.weight >= $minWeight
WITH t, count(n) AS degree
SET t.clusterLabel = CASE WHEN degree > 0 THEN t.id ELSE null END
RETURN sum(CASE WHEN degree > 0 THEN 1 ELSE 0 END) AS labelled
