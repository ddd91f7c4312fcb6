// Trace counts by type and state; $scopeKeys null means the whole store (operators only).
MATCH (t:Trace)
WHERE $scopeKeys IS NULL OR t.scopeKey IN $scopeKeys
RETURN t.type AS type, t.isActive AS active, t.indexed AS indexed, coalesce(t.dormant, false) AS dormant,
       count(t) AS n
