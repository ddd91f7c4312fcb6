// Multi-hop ranking on Neo4j + GDS: project the neighbourhood the walk reached — the caller's
// visible active traces in $traceIds and the entities in $entityKeys they mention — as an
// undirected in-memory graph named $graphName (traces without such an entity stay as lone nodes).
MATCH (t:Trace)
WHERE t.id IN $traceIds AND t.scopeKey IN $scopeKeys AND t.isActive = true
OPTIONAL MATCH (t)-[:MENTIONS]->(e:Entity)
WHERE e.key IN $entityKeys
WITH gds.graph.project($graphName, t, e, {}, {undirectedRelationshipTypes: ['*']}) AS g
RETURN g.graphName AS graphName, g.nodeCount AS nodes, g.relationshipCount AS relationships
