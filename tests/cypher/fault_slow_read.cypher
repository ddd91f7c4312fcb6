// Fault, tests only: a read that keeps the server busy for a while, so that a kill of the
// server lands while it runs.
UNWIND range(1, $n) AS i
RETURN count(i) AS n
