// Traces of one scope key whose identical-content group is still unsettled after the merge step
// (two or more of its members left active and unpinned: a wider group's survivor stated another
// fact): due for the exact-duplicate check again next run.
UNWIND $ids AS id
MATCH (t:Trace {id: id})
WITH t, t.scopeKey AS scopeKey
WHERE scopeKey = $scopeKey
SET t.mergeDueAt = 1
RETURN count(t) AS marked
