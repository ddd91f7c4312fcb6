// Multi-hop retrieval, global questions: the community summaries (Schema nodes) of the visible
// scopes with their visible active members and their centroid, for the caller to score against
// the query. A schema none of whose members the caller may see is not returned.
MATCH (s:Schema)
WHERE s.scopeKey IN $scopeKeys
WITH s
MATCH (t:Trace)-[:SCHEMA_INSTANCE]->(s)
WHERE t.scopeKey IN $scopeKeys AND t.isActive = true
WITH s, collect(t.id) AS members
RETURN s.id AS id, s.summary AS summary, s.scopeKey AS scopeKey, members, s.centroid AS centroid,
       s.centroidModel AS centroidModel
ORDER BY s.createdAt DESC, s.id
LIMIT $limit
