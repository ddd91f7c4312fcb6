// A new version replaces a memory: the old one stops holding where the new one begins, stays
// for history, timeline and as_of (dormant, reason 'superseded_by_update'), and the new one
// SUPERSEDES it with reason 'updated' (the chain history() walks).
MATCH (old:Trace {id: $oldId})
WITH old, old.scopeKey AS oldScope
WHERE oldScope IN $scopeKeys
MATCH (new:Trace {id: $newId})
WHERE new.scopeKey = oldScope
SET old.dormant = true, old.dormantAt = $now, old.deactivatedReason = $reason, old.updatedAt = $now,
    old.validUntil = CASE WHEN old.validUntil IS NULL OR old.validUntil > $now THEN $now ELSE old.validUntil END,
    new.updatedBy = $by, new.version = coalesce(old.version, 1) + 1
MERGE (new)-[r:SUPERSEDES]->(old)
ON CREATE SET r.weight = $weight, r.createdAt = $now, r.updatedAt = $now, r.reason = 'updated'
RETURN new.id AS id
