// Consolidation for the store owner: every scope key that holds active traces. The keys are read
// from the scope-key index (its values, in order, no trace read), then one active trace is sought
// per key: reading every trace's isActive and scopeKey cost three store reads per trace on Neo4j.
MATCH (t:Trace)
WHERE t.scopeKey IS NOT NULL
WITH DISTINCT t.scopeKey AS scopeKey
CALL {
  WITH scopeKey
  MATCH (a:Trace)
  WHERE a.scopeKey = scopeKey AND a.isActive = true
  RETURN a.scopeKey AS active
  LIMIT 1
}
RETURN scopeKey
ORDER BY scopeKey
