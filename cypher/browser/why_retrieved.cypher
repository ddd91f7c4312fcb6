// Why a trace came up: the activation paths from the query's seed traces to it, strongest first.
// Simple paths only: a walk that comes back through a trace it already passed adds no reason.
// :param traceId => 'mt_...'   :param seedIds => ['mt_...']   :param scopeKeys => ['user:acme/u1']
MATCH p = (s:Trace)-[:SHARED_ENTITY|TEMPORAL_SEQUENCE|SAME_TOPIC|CONTRADICTS|SUPERSEDES|CAUSED_BY|CO_ACTIVATED*1..3]-(t:Trace {id: $traceId})
WHERE s.id IN $seedIds
  AND all(n IN nodes(p) WHERE n.scopeKey IN $scopeKeys AND n.isActive = true)
  AND all(i IN range(1, length(p)) WHERE NOT nodes(p)[i] IN nodes(p)[0..i])
RETURN p, reduce(a = 1.0, r IN relationships(p) | a * r.weight * 0.5) AS activation
ORDER BY activation DESC
LIMIT 10
