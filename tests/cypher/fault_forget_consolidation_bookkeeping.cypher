// Fault, tests only: the graph as a store written before consolidation kept its bookkeeping — no
// trace has a sweepDueAt, a mergeDueAt or a confidenceClock, and no scope key a ConsolidationState.
// One property per clause: FalkorDB 4.16 removing two properties of a node in one clause can drop
// a third one as well.
MATCH (t:Trace)
REMOVE t.sweepDueAt
WITH t
REMOVE t.mergeDueAt
WITH t
REMOVE t.confidenceClock
WITH count(t) AS traces
OPTIONAL MATCH (c:ConsolidationState)
DETACH DELETE c
RETURN traces
