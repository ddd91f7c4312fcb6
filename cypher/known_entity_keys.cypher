// The write path: which of these entity keys the caller's visible active memories already
// mention, so a name that merely starts a sentence ("Biscuit has an allergy") is kept as the
// name it is. Entities are shared between tenants: only the caller's own mentions count.
UNWIND $keys AS key
MATCH (e:Entity {key: key})<-[:MENTIONS]-(t:Trace)
WHERE t.scopeKey IN $scopeKeys AND t.isActive = true
RETURN DISTINCT e.key AS key
