// Fault, tests only: the graph as a store written before consolidation kept a decay-sweep
// schedule — no trace has a sweepDueAt and no scope key a ConsolidationState.
MATCH (t:Trace)
REMOVE t.sweepDueAt
WITH count(t) AS traces
OPTIONAL MATCH (c:ConsolidationState)
DETACH DELETE c
RETURN traces
