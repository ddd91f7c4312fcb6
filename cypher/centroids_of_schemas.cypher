// Centroids of the schemas in the given scope keys, in one embedding space: the write path
// compares new input with them (schema encoding: congruent input is discounted, novel boosted).
MATCH (s:Schema)
WHERE s.scopeKey IN $scopeKeys AND s.centroidModel = $model AND s.centroid IS NOT NULL
RETURN s.id AS id, s.scopeKey AS scopeKey, s.centroid AS centroid
ORDER BY s.createdAt DESC, s.id
LIMIT $limit
