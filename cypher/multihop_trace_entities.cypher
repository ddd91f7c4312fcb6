// Multi-hop retrieval, half a hop: the entities mentioned by the frontier traces (visible and
// active only). An entity collects the activation of every frontier trace that mentions it and
// remembers the strongest one as the step of its evidence path (the walk will not step back to
// it). Its fan counts the caller's visible active traces only; an entity no other trace mentions
// leads nowhere and is dropped. Its name is spelled as the visible traces spell it. The query's own entities ($named) are started separately.
// The best `limit` by the share each further mention would get go on.
UNWIND $frontier AS f
MATCH (s:Trace {id: f.id})-[:MENTIONS]->(e:Entity)
WHERE s.scopeKey IN $scopeKeys AND s.isActive = true AND NOT e.key IN $named
WITH e, f
ORDER BY f.activation DESC, f.id
WITH e, sum(f.activation) AS activation, collect(f.id)[0] AS fromId
MATCH (e)<-[r:MENTIONS]-(m:Trace)
WHERE m.scopeKey IN $scopeKeys AND m.isActive = true
WITH e, activation, fromId, count(m) AS fan, min(r.name) AS name
WHERE fan > 1
RETURN e.key AS key, name, activation, fromId, fan, activation / ((fan - 1) ^ $fanExponent) AS share
ORDER BY share DESC, key
LIMIT $limit
