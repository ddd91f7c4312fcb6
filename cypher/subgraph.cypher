// The neighbourhood of some traces for visualisation: the traces, their visible neighbours
// within one hop, the entities they mention, and every edge among them. An entity comes back
// once per visible mention, with what that mention says of it (name, kind, when it was made):
// the shared Entity node's own properties are not read.
MATCH (t:Trace)
WHERE t.id IN $ids AND t.scopeKey IN $scopeKeys
OPTIONAL MATCH (t)-[:SHARED_ENTITY|TEMPORAL_SEQUENCE|SAME_TOPIC|CONTRADICTS|SUPERSEDES|CAUSED_BY|CO_ACTIVATED]-(n:Trace)
WHERE n.scopeKey IN $scopeKeys
WITH collect(DISTINCT t) + collect(DISTINCT n) AS traces
UNWIND traces AS x
WITH collect(DISTINCT x) AS traces
UNWIND traces AS a
OPTIONAL MATCH (a)-[r]-(b)
WHERE (b IN traces AND type(r) <> 'MENTIONS') OR (b:Entity AND type(r) = 'MENTIONS')
RETURN collect(DISTINCT properties(a)) AS traces,
       collect(DISTINCT CASE WHEN b:Entity THEN {key: b.key, name: r.name, kind: r.kind, createdAt: r.createdAt} END) AS entities,
       collect(DISTINCT CASE WHEN r IS NULL THEN NULL
               ELSE {src: startNode(r).id, dst: coalesce(endNode(r).id, endNode(r).key), type: type(r), weight: r.weight} END) AS edges
