// Owner view, tests only: every trace in the graph whatever its scope or state, to check what an
// agent's operations did (or did not) touch. Deliberately unscoped; the library never runs it.
MATCH (t:Trace)
RETURN properties(t) AS trace
