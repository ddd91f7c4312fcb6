// Schema integration on Neo4j + GDS: project one scope key's active traces and their clustering
// edges (undirected, weighted) into an in-memory graph named $graphName.
MATCH (s:Trace)
WHERE s.scopeKey = $scopeKey AND s.isActive = true
OPTIONAL MATCH (s)-[r:SHARED_ENTITY|SAME_TOPIC|CAUSED_BY]->(t:Trace)
WHERE t.scopeKey = $scopeKey AND t.isActive = true AND r.weight >= $minWeight
WITH gds.graph.project($graphName, s, t, {relationshipProperties: r {.weight}},
                       {undirectedRelationshipTypes: ['*']}) AS g
RETURN g.graphName AS graphName, g.nodeCount AS nodes, g.relationshipCount AS relationships
