// The MENTIONS links from each trace to its entities. An Entity node is only a key shared by
// every trace that names it; what a tenant wrote about it (its spelling, its kind, when it
// was first seen) lives on that tenant's MENTIONS links, so no other tenant ever reads it.
UNWIND $rows AS row
MATCH (t:Trace {id: row.traceId})
MERGE (e:Entity {key: row.key})
MERGE (t)-[m:MENTIONS]->(e)
ON CREATE SET m.name = row.name, m.kind = row.kind, m.createdAt = coalesce(row.createdAt, $now)
RETURN count(m) AS linked
