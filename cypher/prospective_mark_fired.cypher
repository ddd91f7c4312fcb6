// Record firings, each only if the intention is still as the check read it (active, same fired
// count): two turns checking at once fire a one-shot intention once. Setting claimedAt first
// takes the node's write lock on Neo4j, so the condition is read after any concurrent firing.
UNWIND $rows AS row
MATCH (p:Prospective {id: row.id})
WHERE p.scopeKey IN $scopeKeys
SET p.claimedAt = $now
WITH p, row
WHERE p.active = true AND p.firedCount = row.expectedFiredCount
SET p.firedCount = p.firedCount + 1, p.lastFiredAt = $now, p.nextFireAt = row.nextFireAt,
    p.active = row.active, p.updatedAt = $now
RETURN p.id AS id, p.firedCount AS firedCount
