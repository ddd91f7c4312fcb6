// Hebbian learning on CO_ACTIVATED: k co-retrievals move w to 1 - (1 - w)(1 - eta)^k
// (an absent edge starts at 0, so one co-retrieval creates it at eta).
// Rows are unique pairs (lower id first) with their count k. Writing r.lock first takes the
// relationship's write lock before its weight is read, so concurrent updates never lose one.
UNWIND $rows AS row
MATCH (a:Trace {id: row.a})
MATCH (b:Trace {id: row.b})
// (scope tested after the id lookup: FalkorDB folds a WHERE into the id index scan, ~4 µs more per id)
WITH *, a.scopeKey AS aScope, b.scopeKey AS bScope
WHERE aScope IN $scopeKeys AND bScope IN $scopeKeys
MERGE (a)-[r:CO_ACTIVATED]->(b)
ON CREATE SET r.weight = 0.0, r.count = 0, r.createdAt = $now
SET r.lock = true
SET r.weight = 1.0 - (1.0 - r.weight) * (1.0 - $eta) ^ row.k, r.count = r.count + row.k, r.updatedAt = $now
REMOVE r.lock
SET a.strongestLink = CASE WHEN a.strongestLink IS NULL OR a.strongestLink >= r.weight THEN a.strongestLink ELSE r.weight END,
    b.strongestLink = CASE WHEN b.strongestLink IS NULL OR b.strongestLink >= r.weight THEN b.strongestLink ELSE r.weight END
RETURN a.id AS a, b.id AS b, r.weight AS weight
