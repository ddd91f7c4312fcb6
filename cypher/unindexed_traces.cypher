// Traces whose vector may be missing: written to the graph but not yet confirmed in Qdrant.
MATCH (t:Trace)
WHERE t.indexed = false
RETURN properties(t) AS trace
LIMIT $limit
