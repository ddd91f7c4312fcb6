// Hebbian hubs: traces most strongly wired to others by being retrieved together.
// :param scopeKeys => ['user:acme/u1']
MATCH (t:Trace)-[r:CO_ACTIVATED]-(o:Trace)
WHERE t.scopeKey IN $scopeKeys AND o.scopeKey IN $scopeKeys
WITH t, count(r) AS links, sum(r.weight) AS strength
RETURN t.id AS id, t.content AS content, links, strength
ORDER BY strength DESC, id
LIMIT 20
