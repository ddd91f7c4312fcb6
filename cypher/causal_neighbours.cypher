// Causal questions ("why ...?"): the traces one or two CAUSED_BY steps from the best
// matches, either direction (the cause of a match, or what it caused), with how many steps
// away. Only visible, active, indexed traces; a dormant one is left to the ranking rules.
UNWIND $ids AS id
MATCH (seed:Trace {id: id})
WITH *, seed.scopeKey AS seedScope
WHERE seedScope IN $scopeKeys
MATCH p = (seed)-[:CAUSED_BY*1..2]-(other:Trace)
WHERE length(p) <= $hops AND other.id <> seed.id AND other.scopeKey IN $scopeKeys
  AND other.isActive = true AND other.indexed = true
  AND all(n IN nodes(p) WHERE n.scopeKey IN $scopeKeys)
RETURN seed.id AS seed, other.id AS id, min(length(p)) AS steps
