// Schema integration on FalkorDB: label propagation (CDLP) over the trace graph, then the
// communities of each consolidated scope key, members not yet in a schema, largest first: the
// $limit a run turns into schemas (at a million traces the rest were ~950k ids a night).
// $relTypes holds EdgeType values present in the graph; the trace graph is undirected here.
CALL algo.labelPropagation({nodeLabels: ['Trace'], relationshipTypes: $relTypes, maxIterations: $maxIterations})
YIELD node, communityId
WITH node, communityId
WHERE node.scopeKey IN $scopeKeys AND node.isActive = true AND NOT (node)-[:SCHEMA_INSTANCE]->(:Schema)
WITH node.scopeKey AS scopeKey, communityId, collect(node.id) AS members
WHERE size(members) >= $minSize
RETURN scopeKey, communityId AS community, members
ORDER BY size(members) DESC, community
LIMIT $limit
