// Maintenance (repair): traces the graph believes are in the vector index.
// Runs for the store owner, not for an agent, so it is not scope-filtered.
MATCH (t:Trace)
WHERE t.indexed = true
RETURN t.id AS id
