// Label-propagation communities of the projected scope graph; members not yet in a schema.
CALL gds.labelPropagation.stream($graphName, {relationshipWeightProperty: 'weight', concurrency: $concurrency})
YIELD nodeId, communityId
WITH gds.util.asNode(nodeId) AS node, communityId
WHERE NOT (node)-[:SCHEMA_INSTANCE]->(:Schema)
WITH communityId, collect(node.id) AS members
WHERE size(members) >= $minSize
RETURN $scopeKey AS scopeKey, communityId AS community, members
ORDER BY size(members) DESC, community
LIMIT $limit
