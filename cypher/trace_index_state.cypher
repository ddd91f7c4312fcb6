// Maintenance (repair): which of these trace ids exist in the graph, and are they active?
// Runs for the store owner, not for an agent, so it is not scope-filtered.
UNWIND $ids AS id
MATCH (t:Trace {id: id})
RETURN t.id AS id, t.isActive AS isActive
