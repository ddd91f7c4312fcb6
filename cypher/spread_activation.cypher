// Spreading activation from seed traces: each seed starts with its own activation (1.0, or
// how relevant retrieval found it); each path carries that times weight x decay per hop;
// paths below the threshold stop; a trace reached by several paths sums them, capped at 1.
// Every node on a path must be an active trace inside the visible scopes.
UNWIND $seeds AS seed
MATCH p = (s:Trace {id: seed.id})-[:SHARED_ENTITY|TEMPORAL_SEQUENCE|SAME_TOPIC|CONTRADICTS|SUPERSEDES|CAUSED_BY|CO_ACTIVATED*1..3]-(t:Trace)
WHERE NOT t.id IN $seedIds
  AND length(p) <= $maxDepth
  AND all(n IN nodes(p) WHERE n.scopeKey IN $scopeKeys AND n.isActive = true)
WITH t, reduce(a = seed.activation, r IN relationships(p) | a * r.weight * $decay) AS pathActivation
WHERE pathActivation >= $threshold
WITH t, sum(pathActivation) AS total
RETURN t.id AS id, CASE WHEN total > 1.0 THEN 1.0 ELSE total END AS activation
ORDER BY activation DESC, id
LIMIT $maxResults
