// Why a trace came up: the activation paths from the query's seed traces to it, strongest first.
// :param traceId => 'mt_...'   :param seedIds => ['mt_...']   :param scopeKeys => ['user:acme/u1']
MATCH p = (s:Trace)-[:SHARED_ENTITY|TEMPORAL_SEQUENCE|SAME_TOPIC|CONTRADICTS|SUPERSEDES|CAUSED_BY|CO_ACTIVATED*1..3]-(t:Trace {id: $traceId})
WHERE s.id IN $seedIds
  AND all(n IN nodes(p) WHERE n.scopeKey IN $scopeKeys AND n.isActive = true)
RETURN p, reduce(a = 1.0, r IN relationships(p) | a * r.weight * 0.5) AS activation
ORDER BY activation DESC
LIMIT 10
