// Everything a retrieval writes, in one round trip (one synced write instead of three):
// 1. access: the counter is incremented in the database (no lost update under concurrency);
//    the spaced-repetition values were computed by the cognitive core, and a dormant trace
//    recalled is active again unless superseded (as record_access);
// 2. Hebbian CO_ACTIVATED among the returned traces, w -> 1 - (1 - w)(1 - eta)^k, the
//    relationship's write lock taken before its weight is read (as hebbian_update);
// 3. what the mechanisms changed (reconsolidation, retrieval-induced forgetting); a null
//    field leaves the property as it is (as write_mechanism_state).
// Each part ends in count(*) without grouping keys, which yields one row even when its
// list is empty, so every later part still runs.
// sweepDueAt = 1: the change may bring the trace's forgetting closer, so the decay sweep reads it
// again (consolidation_sweep_schedule).
UNWIND $access AS row
MATCH (t:Trace {id: row.id})
// (scope tested after the id lookup: FalkorDB folds a WHERE into the id index scan, ~4 µs more per id)
WITH *, t.scopeKey AS scopeKey
WHERE scopeKey IN $scopeKeys
SET t.retrievalCount = coalesce(t.retrievalCount, 0) + 1,
    t.encodingStrength = coalesce(row.encodingStrength, t.encodingStrength),
    t.lastAccessedAt = row.lastAccessedAt,
    t.stability = row.stability,
    t.reinforcementInterval = row.reinforcementInterval,
    t.nextReinforcementAt = row.nextReinforcementAt,
    t.dormant = CASE WHEN t.deactivatedReason = 'superseded' THEN t.dormant ELSE false END,
    t.updatedAt = $now, t.sweepDueAt = 1
WITH count(*) AS accessed
UNWIND $pairs AS pair
MATCH (a:Trace {id: pair.a})
MATCH (b:Trace {id: pair.b})
// (scope tested after the id lookup: FalkorDB folds a WHERE into the id index scan, ~4 µs more per id)
WITH *, a.scopeKey AS aScope, b.scopeKey AS bScope
WHERE aScope IN $scopeKeys AND bScope IN $scopeKeys
MERGE (a)-[r:CO_ACTIVATED]->(b)
ON CREATE SET r.weight = 0.0, r.count = 0, r.createdAt = $now
SET r.lock = true
SET r.weight = 1.0 - (1.0 - r.weight) * (1.0 - $eta) ^ pair.k, r.count = r.count + pair.k, r.updatedAt = $now
REMOVE r.lock
SET a.strongestLink = CASE WHEN a.strongestLink IS NULL OR a.strongestLink >= r.weight THEN a.strongestLink ELSE r.weight END,
    b.strongestLink = CASE WHEN b.strongestLink IS NULL OR b.strongestLink >= r.weight THEN b.strongestLink ELSE r.weight END
WITH count(*) AS wired
UNWIND $changes AS change
MATCH (t:Trace {id: change.id})
// (scope tested after the id lookup: FalkorDB folds a WHERE into the id index scan, ~4 µs more per id)
WITH *, t.scopeKey AS scopeKey
WHERE scopeKey IN $scopeKeys
SET t.valence = coalesce(change.valence, t.valence),
    t.arousal = coalesce(change.arousal, t.arousal),
    t.dominance = coalesce(change.dominance, t.dominance),
    t.stability = coalesce(change.stability, t.stability),
    t.structuredData = coalesce(change.structuredData, t.structuredData),
    t.updatedAt = $now, t.sweepDueAt = 1
RETURN count(*) AS changed
