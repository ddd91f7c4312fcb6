// The merge step claims the traces of one scope key written, rewritten or unpinned since its last
// run (mergeDueAt 1, set by those writes) as this run's (mergeDueAt 2). A write during the run sets
// 1 again, so the trace stays due for the next run; a claim left by a run that stopped is taken too.
MATCH (t:Trace)
WHERE t.scopeKey = $scopeKey AND t.mergeDueAt = 1
SET t.mergeDueAt = 2
RETURN count(t) AS claimed
