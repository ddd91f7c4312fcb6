// Soft delete: the trace stays for history (and SUPERSEDES chains) but is no longer active.
UNWIND $ids AS id
MATCH (t:Trace {id: id})
WHERE t.scopeKey IN $scopeKeys AND t.isActive = true
SET t.isActive = false, t.updatedAt = $now, t.deactivatedReason = $reason
RETURN t.id AS id
