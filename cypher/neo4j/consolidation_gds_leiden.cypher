// Leiden communities of the projected scope graph; members not yet in a schema, largest first.
CALL gds.leiden.stream($graphName, {relationshipWeightProperty: 'weight', concurrency: $concurrency})
YIELD nodeId, communityId
WITH gds.util.asNode(nodeId) AS node, communityId
WHERE NOT (node)-[:SCHEMA_INSTANCE]->(:Schema)
WITH communityId, collect(node.id) AS members
WHERE size(members) >= $minSize
RETURN $scopeKey AS scopeKey, communityId AS community, members
ORDER BY size(members) DESC, community
LIMIT $limit
