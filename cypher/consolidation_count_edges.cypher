// Edges consolidation creates, counted from their source traces (before/after a step).
UNWIND $ids AS id
MATCH (t:Trace {id: id})-[r:SHARED_ENTITY|TEMPORAL_SEQUENCE|SAME_TOPIC|SCHEMA_INSTANCE]->()
RETURN count(r) AS n
