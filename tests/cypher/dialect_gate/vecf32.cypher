// The Neo4j dialect gate must reject this: vecf32 is a FalkorDB-only function.
RETURN vecf32([1.0, 2.0]) AS v
