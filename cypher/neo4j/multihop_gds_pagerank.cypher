// Multi-hop ranking on Neo4j + GDS: personalised PageRank over the projected neighbourhood. The
// walk restarts at the query's entities and at the seed traces, each with its starting activation
// as bias ([node, bias] source pairs); the traces come back with their scores.
UNWIND $entitySources AS source
MATCH (e:Entity {key: source.key})
WITH collect([e, source.bias]) AS entityPairs
OPTIONAL MATCH (s:Trace)
WHERE s.id IN [x IN $traceSources | x.id] AND s.scopeKey IN $scopeKeys AND s.isActive = true
WITH entityPairs, collect(s) AS seeds
WITH entityPairs + [s IN seeds | [s, head([x IN $traceSources WHERE x.id = s.id | x.bias])]] AS sourcePairs
CALL gds.pageRank.stream($graphName, {sourceNodes: sourcePairs, dampingFactor: $damping, maxIterations: $maxIterations,
                                      concurrency: $concurrency})
YIELD nodeId, score
WITH gds.util.asNode(nodeId) AS node, score
WHERE node:Trace AND score > 0
RETURN node.id AS id, score
ORDER BY score DESC, id
LIMIT $limit
