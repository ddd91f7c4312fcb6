// Fault, tests only: a write that keeps the server busy for a while before it counts one more
// retrieval of a trace, so that a kill of the server lands while it runs. Sent twice, it would
// count twice.
MATCH (t:Trace {id: $id})
UNWIND range(1, $n) AS i
WITH t, count(i) AS spun
SET t.retrievalCount = t.retrievalCount + 1
RETURN t.retrievalCount AS n, spun
