// Schema integration: one Schema node per cluster and a SCHEMA_INSTANCE edge from each member.
// Rows: {id, summary, size, algorithm, members, centroid, centroidModel}; a trace is a member of
// one row only. The centroid (unit mean of member embeddings, in the space of `centroidModel`)
// lets the write path tell schema-congruent input from novel input.
UNWIND $rows AS row
MERGE (s:Schema {id: row.id})
ON CREATE SET s.summary = row.summary, s.scopeKey = $scopeKey, s.size = row.size, s.algorithm = row.algorithm,
              s.centroid = row.centroid, s.centroidModel = row.centroidModel,
              s.createdAt = $now, s.updatedAt = $now
WITH s, row
UNWIND row.members AS memberId
MATCH (t:Trace {id: memberId})
WHERE t.scopeKey = $scopeKey AND t.isActive = true
MERGE (t)-[r:SCHEMA_INSTANCE]->(s)
ON CREATE SET r.weight = $weight, r.createdAt = $now, r.updatedAt = $now
RETURN s.id AS id, count(r) AS instances
