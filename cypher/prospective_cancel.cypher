// Cancel an active intention of the visible scopes; it is kept (inactive) for history.
MATCH (p:Prospective {id: $id})
WHERE p.scopeKey IN $scopeKeys AND p.active = true
SET p.active = false, p.cancelledAt = $now, p.updatedAt = $now
RETURN p.id AS id
