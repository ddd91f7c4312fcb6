// Entities (shared by name key) and the MENTIONS links from each trace to them.
UNWIND $rows AS row
MATCH (t:Trace {id: row.traceId})
MERGE (e:Entity {key: row.key})
ON CREATE SET e.name = row.name, e.kind = row.kind, e.createdAt = $now
MERGE (t)-[m:MENTIONS]->(e)
RETURN count(m) AS linked
