// The Neo4j dialect gate must reject this: the node pattern is never closed.
MATCH (t:Trace RETURN t
