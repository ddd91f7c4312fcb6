// After the merge step of one scope key: its claimed traces (mergeDueAt 2) are checked.
MATCH (t:Trace)
WHERE t.scopeKey = $scopeKey AND t.mergeDueAt = 2
SET t.mergeDueAt = null
RETURN count(t) AS cleared
