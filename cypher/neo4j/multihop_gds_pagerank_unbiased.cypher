// Multi-hop ranking on Neo4j + a GDS that takes source nodes without biases (GDS 2.13, the
// release for Neo4j 5.26): the same personalised PageRank as multihop_gds_pagerank, every
// entity of the query and every seed trace a source of equal weight.
UNWIND $entitySources AS source
MATCH (e:Entity {key: source.key})
WITH collect(e) AS entities
OPTIONAL MATCH (s:Trace)
WHERE s.id IN [x IN $traceSources | x.id] AND s.scopeKey IN $scopeKeys AND s.isActive = true
WITH entities, collect(s) AS seeds
WITH entities + seeds AS sources
CALL gds.pageRank.stream($graphName, {sourceNodes: sources, dampingFactor: $damping, maxIterations: $maxIterations,
                                      concurrency: $concurrency})
YIELD nodeId, score
WITH gds.util.asNode(nodeId) AS node, score
WHERE node:Trace AND score > 0
RETURN node.id AS id, score
ORDER BY score DESC, id
LIMIT $limit
