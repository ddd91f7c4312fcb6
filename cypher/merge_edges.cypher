// Create or strengthen associative edges of one type (the type comes from the EdgeType enum).
// Rows must be unique per (src, dst): the caller deduplicates before sending.
UNWIND $rows AS row
MATCH (a:Trace {id: row.src})
MATCH (b:Trace {id: row.dst})
MERGE (a)-[r:__EDGE_TYPE__]->(b)
ON CREATE SET r.weight = row.weight, r.createdAt = $now, r.updatedAt = $now
ON MATCH SET r.weight = CASE WHEN row.weight > r.weight THEN row.weight ELSE r.weight END, r.updatedAt = $now
// both ends' strongestLink stays an upper bound of their non-structural edges' weights (null:
// unknown); $structural is true for SHARED_ENTITY and TEMPORAL_SEQUENCE, which it leaves out
SET a.strongestLink = CASE WHEN $structural OR a.strongestLink IS NULL OR a.strongestLink >= r.weight
                           THEN a.strongestLink ELSE r.weight END,
    b.strongestLink = CASE WHEN $structural OR b.strongestLink IS NULL OR b.strongestLink >= r.weight
                           THEN b.strongestLink ELSE r.weight END
RETURN count(r) AS merged
