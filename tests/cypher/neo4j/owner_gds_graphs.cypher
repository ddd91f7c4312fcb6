// The owner's view of the GDS graph catalog: the names of the in-memory graphs projected now
// (whatever projected them), so a test can see that consolidation dropped its own.
CALL gds.graph.list() YIELD graphName
RETURN graphName
ORDER BY graphName
