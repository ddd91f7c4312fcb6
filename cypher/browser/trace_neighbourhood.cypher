// A trace, the traces it is associated with, and the entities it mentions.
// :param traceId => 'mt_...'   :param scopeKeys => ['user:acme/u1']
MATCH (t:Trace {id: $traceId})
WHERE t.scopeKey IN $scopeKeys
OPTIONAL MATCH (t)-[r]-(n)
WHERE n:Entity OR n:Schema OR (n:Trace AND n.scopeKey IN $scopeKeys)
RETURN t, r, n
LIMIT 150
