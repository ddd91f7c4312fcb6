// The intentions of the visible scopes that may fire now: active, and their next allowed firing
// time (trigger time, "not before", or the end of a cooldown) has come. Whether a keyword or
// context trigger matches the turn is decided by the caller; most important first.
MATCH (p:Prospective)
WHERE p.scopeKey IN $scopeKeys AND p.active = true AND p.nextFireAt <= $now
RETURN properties(p) AS intention
ORDER BY p.importance DESC, p.nextFireAt, p.id
LIMIT $limit
