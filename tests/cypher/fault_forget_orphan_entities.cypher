// Tests only: the Entity nodes that no trace outside $ids mentions, deleted with their links;
// with `fault_delete_trace_node` for each id, a hard forget of those traces (an erasure
// request forgets the names they taught the graph, too).
MATCH (t:Trace)-[:MENTIONS]->(e:Entity)
WHERE t.id IN $ids
WITH DISTINCT e
OPTIONAL MATCH (other:Trace)-[:MENTIONS]->(e)
WHERE NOT other.id IN $ids
WITH e, count(other) AS others
WHERE others = 0
DETACH DELETE e
RETURN count(*) AS deleted
