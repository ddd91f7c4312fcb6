// Multi-hop retrieval, the other half: from entities to the visible active traces that mention
// them. Each entity passes its activation x decay, divided among its visible mentions
// (fan ^ its exponent): a name on every page says little, a rare name says a lot. The walk does
// not step back: an entity reached from a trace ($entities.fromId) passes nothing back to it and
// divides among the other mentions only. A trace reached through several entities sums them and
// keeps the strongest as the step of its evidence path.
// Each entity is matched first, on its own, so the walk starts from it.
UNWIND $entities AS q
MATCH (e:Entity {key: q.key})
WITH q, e
MATCH (e)<-[:MENTIONS]-(t:Trace)
WHERE t.scopeKey IN $scopeKeys AND t.isActive = true
WITH q, e, collect(t) AS mentions
WITH q, e, [m IN mentions WHERE q.fromId IS NULL OR m.id <> q.fromId] AS targets
WHERE size(targets) > 0
WITH q, e, targets, q.activation * $decay / (size(targets) ^ q.exponent) AS share
UNWIND targets AS t
WITH t, q, e, share
ORDER BY share DESC, e.key
WITH t, sum(share) AS activation, collect({key: e.key, fromId: q.fromId})[0] AS via
WHERE activation >= $minActivation
RETURN t.id AS id, activation, via.key AS entityKey, via.fromId AS fromId
ORDER BY activation DESC, id
LIMIT $limit
