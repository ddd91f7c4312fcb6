// Multi-hop retrieval, start: the Entity nodes a query names (by key), each with its fan — how
// many of the caller's visible active traces mention it — and its name as those traces spell
// it. Entities are shared between tenants, so only visible traces count, and an entity no
// visible trace mentions is not returned.
// The entity is matched first, on its own, so the walk starts from it and not from every
// visible trace.
UNWIND $keys AS key
MATCH (e:Entity {key: key})
WITH e
MATCH (e)<-[m:MENTIONS]-(t:Trace)
WHERE t.scopeKey IN $scopeKeys AND t.isActive = true
RETURN e.key AS key, min(m.name) AS name, count(t) AS fan
ORDER BY fan, key
