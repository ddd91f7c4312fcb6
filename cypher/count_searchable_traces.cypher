// Maintenance (open): how many traces a search can return, all scopes: active and in the
// vector index. One count row, compared at open with the count of this store's vectors.
MATCH (t:Trace)
WHERE t.isActive = true AND t.indexed = true
RETURN count(t) AS n
