// How many traces still lack the derived metadata lists filters read.
MATCH (t:Trace)
WHERE t.metaPairs IS NULL
RETURN count(t) AS n
