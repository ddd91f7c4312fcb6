// How many active traces one scope key holds (what a consolidation run examines).
MATCH (t:Trace)
WHERE t.scopeKey = $scopeKey AND t.isActive = true
RETURN count(t) AS n
